/**
 * What reading the OS trust store gave: the PEM roots it trusts for TLS, with notes on any part
 * that could not be read (a keychain, one domain's trust settings); or why nothing could be.
 */
export type OsRootsReading =
  { readonly roots: readonly string[]; readonly notes: readonly string[] } | { readonly failure: string };
