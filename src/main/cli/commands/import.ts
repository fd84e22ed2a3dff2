import path from 'node:path';
import { findOnPath } from '../../platform/findOnPath.js';
import { parseArgs } from 'node:util';
import { ROUTES } from '../../../shared/api/routes.js';
import { configProfilePorts } from '../../kubeconfig/configProfilePorts.js';
import type { ImportPlan } from '../../kubeconfig/importPlan.js';
import { kubeconfigFiles } from '../../kubeconfig/kubeconfigFiles.js';
import { previewImport, runImport, type ImportPorts } from '../../kubeconfig/runImport.js';
import { currentPlatformEnv } from '../../platform/paths.js';
import { nativeShimPath, nodeCliPath } from '../../platform/shimLocation.js';
import { UsageError, type CliContext, type Command } from '../io.js';
import { requestStartingBroker } from '../withBroker.js';
import { apiVersionFlag } from './install.js';

export const importCommand: Command = {
  name: 'import',
  usage: 'kubecred import [--kubeconfig <file>] [--dry-run] [--api-version v1|v1beta1]',
  async run(args, context) {
    const { values } = parseFlags(args);
    const { io, paths } = context;
    const request = {
      files: kubeconfigFiles({ ...currentPlatformEnv(), env: io.env }, values.kubeconfig),
      command: nativeShimPath() ?? nodeCliPath(),
      ...(values['api-version'] ? { apiVersion: apiVersionFlag(values['api-version']) } : {}),
      caDir: path.join(paths.home, 'ca'),
      findCommand: (name: string) => findOnPath(name, io.env),
      ports: brokerPorts(context),
    };
    const preview = await previewImport(request);
    if (values['dry-run'] || preview.imported.length === 0) {
      for (const rewrite of preview.rewrites) io.stdout.write(rewrite.diff);
      report(preview, io.stderr, values['dry-run'] ? 'would move' : 'moved');
      return 0;
    }
    // Started before the lock is taken, so kubectl is kept waiting only for the edit itself.
    await requestStartingBroker(context, (client) => client.request('GET', ROUTES.status));
    const { plan, backups } = await runImport({ ...request, backupDir: path.join(paths.stateDir, 'kubeconfig-backups'), now: new Date() });
    report(plan, io.stderr, 'moved');
    for (const [file, backup] of backups) {
      // Only users whose secrets moved left plaintext in the old file; wrapped plugins left none.
      const plaintext = plan.imported.some((user) => user.file === file && user.secrets.length > 0);
      io.stderr.write(`backup of ${file} as it was: ${backup} (mode 0600${plaintext ? '; it still holds the old plaintext credentials: delete it once kubectl works through Kubecred' : ''})\n`);
    }
    const leftFiles = [...new Set(plan.imported.flatMap((user) => user.secrets.flatMap((secret) => (secret.file ? [secret.file] : []))))];
    if (leftFiles.length > 0) io.stderr.write(`these files were copied into the secret store and left in place; you can delete them now:\n${leftFiles.map((f) => `  ${f}\n`).join('')}`);
    return 0;
  },
};

function report(plan: ImportPlan, out: NodeJS.WritableStream, verb: string): void {
  if (plan.imported.length === 0) out.write('kubecred: no user with credentials to move (users that already call Kubecred are skipped)\n');
  for (const user of plan.imported) {
    const what = user.secrets.length > 0 ? user.secrets.map((secret) => `${secret.field} from ${secret.from}`).join(', ') : 'the plugin command, wrapped';
    out.write(`kubecred: ${verb} user "${user.user}" of ${user.file} to ${user.provider} profile ${user.profile}: ${what}\n`);
    if (user.warning) out.write(`  note: ${user.warning}\n`);
  }
  for (const user of plan.left) out.write(`kubecred: left user "${user.user}" of ${user.file} as it is: ${user.reason}\n`);
}

/** config.yaml is edited here; secrets go through the broker, which owns the secret stores. */
function brokerPorts(context: CliContext): ImportPorts {
  const send = async (method: 'PUT' | 'DELETE', profile: string, field: string, body?: unknown): Promise<void> => {
    const answer = await requestStartingBroker(context, (client) => client.request(method, ROUTES.secret(profile, field), body));
    if (answer.status >= 300) throw new Error(`the broker did not store ${profile}/${field} (${answer.status}): ${answer.body.slice(0, 300)}. Nothing was changed in the kubeconfig`);
  };
  return {
    ...configProfilePorts(context.paths.configFile),
    storeSecret: (profile, field, value) => send('PUT', profile, field, { value }),
    deleteSecret: (profile, field) => send('DELETE', profile, field),
  };
}

function parseFlags(args: string[]) {
  try {
    return parseArgs({ args, options: { kubeconfig: { type: 'string' }, 'dry-run': { type: 'boolean' }, 'api-version': { type: 'string' } }, allowPositionals: false });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
