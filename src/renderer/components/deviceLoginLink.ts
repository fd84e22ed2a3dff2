/** What a device login's card links to, and an address it leaves unlinked. */
export interface DeviceLoginLink {
  /** The address the card shows and, when it is http(s), opens: the text is always the target. */
  readonly address: string;
  readonly linkable: boolean;
  /** A verification_uri_complete on another site than verification_uri: shown plainly, never opened. */
  readonly otherSite?: string;
}

/**
 * The issuer sends two addresses (RFC 8628 3.2): verification_uri, the page to type the code
 * into, and maybe verification_uri_complete, that page with the code filled in. Both come from
 * the issuer, which an imported kubeconfig names, so a hostile one could show one page and open
 * another: the complete address is used only on the same origin as the page it completes, and
 * the link's text is the address it opens.
 */
export function deviceLoginLink(verificationUri: string, verificationUriComplete?: string): DeviceLoginLink {
  const page = httpOrigin(verificationUri);
  if (verificationUriComplete !== undefined && verificationUriComplete !== verificationUri) {
    if (page !== undefined && httpOrigin(verificationUriComplete) === page)
      return { address: verificationUriComplete, linkable: true };
    return { address: verificationUri, linkable: page !== undefined, otherSite: verificationUriComplete };
  }
  return { address: verificationUri, linkable: page !== undefined };
}

/** The origin of an http(s) address; undefined for anything else (javascript:, data:, junk). */
function httpOrigin(address: string): string | undefined {
  try {
    const url = new URL(address);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.origin : undefined;
  } catch {
    return undefined;
  }
}
