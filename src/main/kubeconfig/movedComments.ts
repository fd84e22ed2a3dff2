import { Scalar, isCollection, isScalar, visit, type Node, type YAMLMap } from 'yaml';

/**
 * Removes `keys` from a user's map and gives back a key named `replacement` that carries their
 * comments: the first comment found at the end of a removed line goes to the end of the new
 * key's line (`exec: # rotated monthly`), every other comment goes on lines above it. The comments
 * are the user's notes (who owns the account, when it rotates); replacing a credential must not
 * drop them.
 */
export function removeKeepingComments(body: YAMLMap, keys: readonly string[], replacement: string): Scalar {
  const before: string[] = [];
  const trailing: string[] = [];
  const note = (node: Node) => {
    if (node.commentBefore) before.push(node.commentBefore);
    if (!node.comment) return;
    // A scalar's comment sits at the end of its line; a block's comes after its last line.
    if (isScalar(node) && trailing.length === 0) trailing.push(node.comment);
    else before.push(node.comment);
  };
  for (const pair of body.items) {
    if (!keys.includes(String(isScalar(pair.key) ? pair.key.value : pair.key))) continue;
    for (const node of [pair.key, pair.value]) {
      if (isScalar(node)) note(node);
      else if (isCollection(node)) visit(node, { Node: (_key, inner) => void note(inner) });
    }
  }
  for (const key of keys) body.delete(key);
  const key = new Scalar(replacement);
  if (before.length > 0) key.commentBefore = before.join('\n');
  if (trailing.length > 0) key.comment = trailing[0];
  return key;
}
