/** Profile names are what config.yaml allows: 1-63 of [a-z0-9._-], letter or digit at both ends. */
const MAX = 63;

/**
 * A profile name for a kubeconfig user (e.g. `arn:aws:eks:...:cluster/prod` becomes
 * `arn-aws-eks-...-cluster-prod`), made unique against `taken`, which it then joins.
 */
export function profileNameFor(user: string, taken: Set<string>): string {
  const trim = (text: string): string => text.replace(/^[^a-z0-9]+/, '').replace(/[^a-z0-9]+$/, '');
  const base = trim(user.toLowerCase().replace(/[^a-z0-9._-]+/g, '-')) || 'imported';
  let name = trim(base.slice(0, MAX));
  for (let n = 2; taken.has(name); n++) name = `${trim(base.slice(0, MAX - String(n).length - 1))}-${n}`;
  taken.add(name);
  return name;
}
