import { fileURLToPath } from 'node:url';

/** dist/native/<platform>-<arch>/<file> beside dist/main; from the sources (tests under tsx), the checkout's dist/. */
export function nativeAddonPath(file: string): string {
  const here = fileURLToPath(import.meta.url);
  const fromSource = /[\\/]src[\\/]main[\\/]platform[\\/]/.test(here);
  const relative = `${fromSource ? '../../../dist' : '../..'}/native/${process.platform}-${process.arch}/${file}`;
  return fileURLToPath(new URL(relative, import.meta.url));
}
