import type { GuardedRequestView } from '../shared/api/prompts.js';

type Body = GuardedRequestView['body'];

// What a guard's confirm prompt says about the body a request sends: which kind of write it
// is (a patch is the patch itself), its size, its text laid out to read, and what is not shown.

const KINDS: Readonly<Record<string, string>> = {
  'application/merge-patch+json': 'JSON merge patch',
  'application/strategic-merge-patch+json': 'strategic merge patch',
  'application/json-patch+json': 'JSON patch',
  'application/apply-patch+yaml': 'server-side apply',
  'application/apply-patch+cbor': 'server-side apply, CBOR',
  'application/json': 'JSON',
  'application/yaml': 'YAML',
  'application/vnd.kubernetes.protobuf': 'protobuf',
  'application/cbor': 'CBOR',
};

/** "JSON merge patch", "protobuf", or the media type as sent when it is no usual one. */
export function bodyKind(mediaType: string): string {
  return KINDS[mediaType] ?? (mediaType || 'no media type given');
}

/** "26 bytes", "5.3 KiB", "1.2 MiB". */
export function sizeWords(bytes: number): string {
  if (bytes === 1) return '1 byte';
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** "Patch sent" for a PATCH (its body is the change itself), else "Body sent". */
export function bodyTitle(method: string): string {
  return method.toUpperCase() === 'PATCH' ? 'Patch sent' : 'Body sent';
}

/** Why the body's text is not (all) on screen, or undefined when it all is. */
export function bodyNotShown(body: Body): string | undefined {
  const what = `${bodyKind(body.mediaType)}, ${sizeWords(body.bytes)}`;
  if (body.encoding) return `The body is compressed (${body.encoding}; ${what}), so Kubecred cannot show it.`;
  if (!body.text && body.bytes > 0) return `The body is not text (${what}), so Kubecred cannot show it.`;
  if (body.truncated)
    return `Only the start of the body is shown; it is ${sizeWords(body.bytes)} in all. Allow only if you know what the rest does.`;
  return undefined;
}

/**
 * The proxy's compact JSON laid out one value a line, two spaces a level, token by token: it
 * keeps every key as sent (a key written twice shows twice, as the server reads it), and it
 * lays out a preview cut in the middle too. Anything but one line of JSON is shown as it is.
 */
export function laidOutBody(preview: string): string {
  if (!/^[[{]/.test(preview) || preview.includes('\n')) return preview;
  let out = '';
  let depth = 0;
  let inString = false;
  let escaped = false;
  const newline = () => `\n${'  '.repeat(depth)}`;
  for (let i = 0; i < preview.length; i++) {
    const ch = preview[i]!;
    if (inString) {
      out += ch;
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
      continue;
    }
    const next = preview[i + 1];
    if ((ch === '{' && next === '}') || (ch === '[' && next === ']')) {
      out += ch + next;
      i++;
    } else if (ch === '{' || ch === '[') {
      depth++;
      out += ch + newline();
    } else if (ch === '}' || ch === ']') {
      depth = Math.max(0, depth - 1);
      out += newline() + ch;
    } else if (ch === ',') out += `,${newline()}`;
    else if (ch === ':') out += ': ';
    else {
      if (ch === '"') inString = true;
      out += ch;
    }
  }
  return out;
}
