import path from 'node:path';
import { findOnPath } from '../../platform/findOnPath.js';
import { parseArgs } from 'node:util';
import { configProfilePorts } from '../../kubeconfig/configProfilePorts.js';
import type { ImportPlan } from '../../kubeconfig/importPlan.js';
import { KUBELOGIN_SWITCH_COMMAND } from '../../kubeconfig/kubeloginSwitch.js';
import { kubeconfigFiles } from '../../kubeconfig/kubeconfigFiles.js';
import { previewImport, runImport, type ImportPorts } from '../../kubeconfig/runImport.js';
import { pruneBackups } from '../../kubeconfig/importRecord.js';
import { undoImport, UndoRefusedError } from '../../kubeconfig/undoImport.js';
import { currentPlatformEnv } from '../../platform/paths.js';
import { nativeShimPath, nodeCliPath } from '../../platform/shimLocation.js';
import { UsageError, type CliContext, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';
import { removeProfileThroughBroker } from '../removeProfileThroughBroker.js';
import { apiVersionFlag } from './install.js';

export const importCommand: Command = {
  name: 'import',
  usage:
    'kubecred import [--kubeconfig <file>] [--dry-run] [--oidc] [--api-version v1|v1beta1] | --undo [--plaintext] [--force] | --prune-backups',
  async run(args, context) {
    const { values } = parseFlags(args);
    const { io, paths } = context;
    const backupDir = paths.kubeconfigBackups;
    if (values.undo)
      return undo(context, backupDir, { plaintext: values.plaintext === true, force: values.force === true });
    if (values['prune-backups']) {
      const pruned = await pruneBackups(backupDir);
      io.stderr.write(
        pruned.length === 0
          ? `kubecred: no backups in ${backupDir}\n`
          : `kubecred: deleted ${pruned.length} kubeconfig backup${pruned.length === 1 ? '' : 's'} from ${backupDir}; earlier imports can no longer be undone\n`,
      );
      return 0;
    }
    if (values.plaintext || values.force) throw new UsageError('--plaintext and --force go with --undo');
    const configFile = paths.configFile;
    const request = {
      files: kubeconfigFiles({ ...currentPlatformEnv(), env: io.env }, values.kubeconfig),
      command: nativeShimPath() ?? nodeCliPath(),
      ...(values['api-version'] ? { apiVersion: apiVersionFlag(values['api-version']) } : {}),
      caDir: path.join(paths.home, 'ca'),
      findCommand: (name: string) => findOnPath(name, io.env),
      ports: brokerPorts(context),
      // --oidc: every kubelogin user gets Kubecred's own login instead of a wrapper of kubelogin.
      ...(values.oidc ? { ownLogin: () => true } : {}),
    };
    const preview = await previewImport(request);
    if (values['dry-run'] || preview.imported.length === 0) {
      for (const rewrite of preview.rewrites) io.stdout.write(rewrite.diff);
      if (preview.configText)
        io.stdout.write(`# profiles added to ${configFile} (secrets go to the secret store)\n${preview.configText}`);
      report(preview, io.stderr, values['dry-run'] ? 'would move' : 'moved');
      return 0;
    }
    // Started before the lock is taken, so kubectl is kept waiting only for the edit itself.
    await requestStartingBroker(context, (client) => client.call('status'));
    const { plan, backups } = await runImport({ ...request, backupDir, now: new Date() });
    report(plan, io.stderr, 'moved');
    for (const [file, { backup, plaintextUsers }] of backups) {
      io.stderr.write(
        `backup of ${file} as it was: ${backup} (mode 0600${plaintextUsers.length > 0 ? '; it still holds the old plaintext credentials: once kubectl works through Kubecred, kubecred import --prune-backups deletes it' : ''})\n`,
      );
    }
    io.stderr.write('to take this import back: kubecred import --undo\n');
    const leftFiles = [
      ...new Set(plan.imported.flatMap((user) => user.secrets.flatMap((secret) => (secret.file ? [secret.file] : [])))),
    ];
    if (leftFiles.length > 0)
      io.stderr.write(
        `these files were copied into the secret store and left in place; you can delete them now:\n${leftFiles.map((f) => `  ${f}\n`).join('')}`,
      );
    return 0;
  },
};

function report(plan: ImportPlan, out: NodeJS.WritableStream, verb: string): void {
  if (plan.imported.length === 0 && plan.wrappersOffered.length === 0)
    out.write('kubecred: no user with credentials to move (users that already call Kubecred are skipped)\n');
  for (const user of plan.imported) {
    const what =
      user.secrets.length > 0
        ? user.secrets.map((secret) => `${secret.field} from ${secret.from}`).join(', ')
        : user.ownLogin === 'chosen'
          ? "Kubecred's own login, in place of kubelogin"
          : 'the plugin command, wrapped';
    const contexts = user.contexts.length > 0 ? ` (context ${user.contexts.join(', ')})` : '';
    out.write(
      `kubecred: ${verb} user "${user.user}" of ${user.file}${contexts} to ${user.provider} profile ${user.profile}: ${what}\n`,
    );
    for (const note of [...(user.news ?? []), ...user.notes]) out.write(`  note: ${note}\n`);
    if (user.ownLogin === 'offered') out.write(`  to switch to Kubecred's own login: ${KUBELOGIN_SWITCH_COMMAND}\n`);
  }
  for (const user of plan.left)
    out.write(`kubecred: left user "${user.user}" of ${user.file} as it is: ${user.reason}\n`);
  for (const user of plan.wrappersOffered)
    out.write(
      `kubecred: user "${user.user}" of ${user.file} calls Kubecred's wrapper of kubelogin (profile ${user.profile})\n  note: ${user.note}\n`,
    );
}

/** config.yaml is edited here; secrets go through the broker, which owns the secret stores. */
function brokerPorts(context: CliContext): ImportPorts {
  const send = async (profile: string, field: string, body?: { value: string }): Promise<void> => {
    const answer = await requestStartingBroker(context, (client) =>
      body
        ? client.call('storeSecret', { params: { profile, field }, body })
        : client.call('deleteSecret', { params: { profile, field } }),
    );
    if (answer.status >= 300)
      throw new Error(
        `the broker did not store ${profile}/${field} (${answer.status}): ${answer.body.slice(0, 300)}. Nothing was changed in the kubeconfig`,
      );
  };
  return {
    ...configProfilePorts(context.paths.configFile),
    removeProfile: (profile) => removeProfileThroughBroker(context, profile),
    storeSecret: (profile, field, value) => send(profile, field, { value }),
    deleteSecret: (profile, field) => send(profile, field),
  };
}

/** Asks the broker, which holds them, to write the live refresh tokens into the restored users. */
async function liveRefreshTokens(context: CliContext): Promise<string[]> {
  const answer = await requestStartingBroker(context, (client) => client.call('importLiveRefreshTokens'));
  if (answer.status !== 200) throw new Error(`the broker answered ${answer.status}: ${answer.body.slice(0, 300)}`);
  return (JSON.parse(answer.body) as { users: string[] }).users;
}

async function undo(
  context: CliContext,
  backupDir: string,
  options: { plaintext: boolean; force: boolean },
): Promise<number> {
  const { io } = context;
  try {
    const ports = { ...brokerPorts(context), restoreLiveRefreshTokens: () => liveRefreshTokens(context) };
    const { record, restored, leftovers, liveRefreshTokens: live } = await undoImport({ backupDir, ports, ...options });
    for (const { file, backup } of restored)
      io.stderr.write(
        `kubecred: restored ${file} as it was before the import of ${record.at} (from ${backup}, now deleted)\n`,
      );
    for (const user of live)
      io.stderr.write(
        `kubecred: wrote back the refresh token Kubecred holds now for user ${user}: the backup's is older, and issuers rotate them\n`,
      );
    if (record.profiles.length > 0)
      io.stderr.write(
        `kubecred: removed profile${record.profiles.length === 1 ? '' : 's'} ${record.profiles.join(', ')} and ${record.secrets.length} stored secret${record.secrets.length === 1 ? '' : 's'}\n`,
      );
    for (const leftover of leftovers) io.stderr.write(`kubecred: could not remove ${leftover}\n`);
    return leftovers.length > 0 ? 1 : 0;
  } catch (error) {
    if (!(error instanceof UndoRefusedError)) throw error;
    io.stderr.write(`kubecred: ${error.message}; nothing was changed\n  ${error.hint}\n`);
    return 1;
  }
}

function parseFlags(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        kubeconfig: { type: 'string' },
        'dry-run': { type: 'boolean' },
        oidc: { type: 'boolean' },
        'api-version': { type: 'string' },
        undo: { type: 'boolean' },
        plaintext: { type: 'boolean' },
        force: { type: 'boolean' },
        'prune-backups': { type: 'boolean' },
      },
      allowPositionals: false,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
