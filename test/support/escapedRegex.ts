/** `text` as a regular expression that matches it letter for letter (a URL's dots and question marks too). */
export function escapedRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
