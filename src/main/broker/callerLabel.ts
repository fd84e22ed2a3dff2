/** How a message names a calling program: "kubectl (pid 4242)", "pid 4242", or undefined when nothing is known. */
export function callerLabel({
  pid,
  name,
}: {
  readonly pid?: number | undefined;
  readonly name?: string | undefined;
}): string | undefined {
  if (name !== undefined && pid !== undefined) return `${name} (pid ${pid})`;
  return name ?? (pid !== undefined ? `pid ${pid}` : undefined);
}
