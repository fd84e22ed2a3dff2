import { createHash } from 'node:crypto';
import type { ImportMove, ImportPreview } from '../../shared/api/webUiApi.js';
import { profileItemText } from './addedProfilesText.js';
import type { ImportPlan } from './importPlan.js';

/** What the page shows of a user that moves: names and field names, never a value. */
export function importMoves(plan: ImportPlan): ImportMove[] {
  return plan.imported.map((user) => ({
    file: user.file,
    user: user.user,
    profile: user.profile,
    provider: user.provider,
    secrets: user.secrets.map((secret) => secret.field),
    notes: [...user.notes],
    news: [...(user.news ?? [])],
    contexts: [...user.contexts],
    profileText: profileItemText(user.profileInput),
    ownLoginChosen: user.ownLogin === 'chosen',
    ...(user.ownLoginAlternative
      ? {
          ownLogin: {
            secrets: user.ownLoginAlternative.secrets.map((secret) => secret.field),
            news: [...(user.ownLoginAlternative.news ?? [])],
            profileText: profileItemText(user.ownLoginAlternative.profileInput),
          },
        }
      : {}),
  }));
}

/** The wizard's preview; its fingerprint lets the apply move exactly what was shown. */
export function importView(files: readonly string[], plan: ImportPlan): ImportPreview {
  const diff = plan.rewrites.map((rewrite) => rewrite.diff).join('');
  const planned = {
    files: [...files],
    moves: importMoves(plan),
    left: plan.left.map(({ file, user, reason }) => ({ file, user, reason })),
    diff,
  };
  return { ...planned, fingerprint: createHash('sha256').update(JSON.stringify(planned)).digest('hex') };
}
