import { X509Certificate } from 'node:crypto';
import { parseArgs } from 'node:util';
import { parseDuration, formatRemaining } from '../../../shared/duration.js';
import { profileName, type KubecredConfig } from '../../../shared/config/schema.js';
import { signerCapWords } from '../../../shared/certificateLife.js';
import { addToken } from '../../config/configEditor.js';
import { unknownProfileError } from '../../config/unknownProfile.js';
import { enroll, ENROLL_KEY_TYPES, type EnrollKeyType, type EnrollmentRequest } from '../../enroll/enrollment.js';
import { userKubectl } from '../../enroll/kubectlRunner.js';
import { renewCommand } from '../../enroll/renewCommand.js';
import { findOnPath } from '../../platform/findOnPath.js';
import type { Pkcs11Service } from '../../secrets/pkcs11/pkcs11Service.js';
import { cliConfiguration, terminalToken } from '../enrollWiring.js';
import { UsageError, type CliContext, type Command } from '../io.js';
import { printBrokerError } from '../printError.js';
import { requestStartingBroker } from '../withBroker.js';

const DEFAULT_EXPIRATION = '720h';
const DEFAULT_WAIT = '10m';

export const enrollCommand: Command = {
  name: 'enroll',
  usage: `kubecred enroll <profile> --context <context> --token <token> --user <name> [--group <group> ...] [--module <pkcs11.so> [--token-label <label>]] [--key-type ${ENROLL_KEY_TYPES.join('|')}] [--label <label>] [--new-context <name>] [--expiration ${DEFAULT_EXPIRATION}] [--wait ${DEFAULT_WAIT}]
       kubecred enroll <profile> --renew [--new-key] --context <context>   (a new certificate before the old one ends)
       kubecred enroll <profile> ... --resume <request>   (wait again for a request already submitted)
  A key made on the token, a certificate from the cluster's own CSR API (a cluster admin approves it), and a profile and context that reach the cluster through the exec proxy with it.`,
  async run(args, context) {
    const { io } = context;
    const say = (line: string) => io.stderr.write(`kubecred: ${line}\n`);
    const flags = parseFlags(args);
    const config = await withNamedToken(context, flags.values);
    const { token, service, pinTyped } = terminalToken(context, config.tokens);
    const kubectlPath = findOnPath('kubectl', io.env) ?? 'kubectl';
    try {
      const request = await enrollmentRequest(flags, config, service, context.paths.configFile);
      const result = await enroll(
        {
          token,
          kubectl: userKubectl(kubectlPath, io.env),
          configuration: cliConfiguration(context),
          say,
          now: () => Date.now(),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
        },
        request,
      );
      await handPinToBroker(context, pinTyped());
      if (result.port !== undefined)
        say(
          `profile ${request.profile} is ready: kubectl --context ${request.newContext} reaches ${result.upstream} as ${request.user} through the exec proxy on 127.0.0.1:${result.port}`,
        );
      else await presentRenewed(context, request.profile, say);
      const capped = signerCapWords(request.expirationSeconds * 1000, result.notBefore, result.notAfter);
      say(
        `the certificate ends in ${formatRemaining(result.notAfter.getTime() - Date.now())}${capped ? ` (${capped})` : ''}; renew it before then with: ${renewCommand(request.profile, request.context)}`,
      );
      return 0;
    } finally {
      await service.close();
    }
  },
};

/** The broker logs in with the PIN just typed, so the first kubectl through the proxy is not asked again. */
async function handPinToBroker(context: CliContext, typed: { token: string; pin: string } | undefined): Promise<void> {
  if (!typed) return;
  const answer = await requestStartingBroker(context, (client) =>
    client.call('tokenLogin', { params: { token: typed.token }, body: { pin: typed.pin } }),
  );
  if (answer.status !== 200) printBrokerError(answer, context.io.stderr);
}

/**
 * The running broker reads the renewed certificate from the token now: its cached credential
 * goes and the exec proxy's listener is told the new certificate, so the next request upstream
 * presents it and status shows its end; nothing restarts (docs/exec-proxy.md).
 */
async function presentRenewed(context: CliContext, profile: string, say: (line: string) => void): Promise<void> {
  const answer = await requestStartingBroker(context, (client) => client.call('refresh', { params: { profile } }));
  if (answer.status === 200) {
    say(`profile ${profile} presents the new certificate to the cluster from now on`);
    return;
  }
  printBrokerError(answer, context.io.stderr);
  say(
    `the broker still presents the old certificate of ${profile}; once the cause above is fixed: kubecred refresh ${profile}`,
  );
}

/**
 * config.yaml, with the token --module names added when it is not there yet: from a fresh home
 * and a blank token, enroll is the one command.
 */
async function withNamedToken(context: CliContext, values: Flags['values']): Promise<KubecredConfig> {
  const configuration = cliConfiguration(context);
  const config = await configuration.config();
  if (!values.module || !values.token || config.tokens.some((t) => t.name === values.token)) return config;
  await addToken(context.paths.configFile, {
    name: values.token,
    module: values.module,
    label: values['token-label'] ?? values.token,
  });
  context.io.stderr.write(`kubecred: token ${values.token} (${values.module}) added to ${context.paths.configFile}\n`);
  return configuration.config();
}

async function enrollmentRequest(
  { values, positionals }: Flags,
  config: KubecredConfig,
  tokens: Pick<Pkcs11Service, 'tokenKey'>,
  configFile: string,
): Promise<EnrollmentRequest> {
  const [profile, ...extra] = positionals;
  if (!profile || extra.length > 0) throw new UsageError('expected: kubecred enroll <profile> --context <context> ...');
  const named = profileName.safeParse(profile);
  if (!named.success) throw new UsageError(`${JSON.stringify(profile)}: ${named.error.issues[0]?.message}`);
  if (!values.context) throw new UsageError('say which context reaches the cluster now: --context <context>');
  const mode = values.renew ? (values['new-key'] ? 'renew-new-key' : 'renew') : 'new';
  if (values['new-key'] && !values.renew) throw new UsageError('--new-key goes with --renew');
  // A renewal names a profile there is: a typo is said as one, not as a missing --user.
  if (mode !== 'new' && !config.profiles.some((p) => p.name === profile))
    throw unknownProfileError(
      profile,
      configFile,
      config.profiles.map((p) => p.name),
      { offerToAdd: false },
    );
  const keyType = (values['key-type'] ?? 'ec-p256') as EnrollKeyType;
  if (!ENROLL_KEY_TYPES.includes(keyType))
    throw new UsageError(`--key-type is one of ${ENROLL_KEY_TYPES.join(', ')}, not ${values['key-type']}`);
  const expiration = duration('--expiration', values.expiration ?? DEFAULT_EXPIRATION);
  if (expiration < 600_000) throw new UsageError('--expiration is at least 10m (the signer refuses less)');
  const waitMs = duration('--wait', values.wait ?? DEFAULT_WAIT);
  const renewing = mode !== 'new' ? await currentIdentity(config, tokens, profile) : undefined;
  const user = values.user ?? renewing?.user;
  if (!user)
    throw new UsageError('say who the certificate is for: --user <name> (the cluster sees it as the user name)');
  const token = values.token ?? renewing?.token;
  if (!token) throw new UsageError('say which token makes the key: --token <name> (kubecred token list)');
  return {
    profile,
    context: values.context,
    newContext: values['new-context'] ?? profile,
    token,
    label: values.label ?? renewing?.label ?? `kubecred-${profile}`,
    user,
    groups: values.group ?? renewing?.groups ?? [],
    keyType,
    expirationSeconds: Math.round(expiration / 1000),
    waitMs,
    mode,
    ...(values.resume ? { resume: values.resume } : {}),
  };
}

/** For a renewal: the token and label config.yaml names, and the user and groups of the certificate there now. */
async function currentIdentity(config: KubecredConfig, tokens: Pick<Pkcs11Service, 'tokenKey'>, profile: string) {
  const found = config.profiles.find((p) => p.name === profile);
  if (!found || found.provider !== 'static' || !found.tokenCertificate) return undefined;
  const { token, label } = found.tokenCertificate;
  const { certificatePem } = await tokens.tokenKey(token, label);
  const subject = new X509Certificate(certificatePem).subject.split('\n');
  const user = subject.find((part) => part.startsWith('CN='))?.slice(3);
  const groups = subject.filter((part) => part.startsWith('O=')).map((part) => part.slice(2));
  return { token, label, ...(user ? { user } : {}), groups };
}

function duration(flag: string, text: string): number {
  const ms = parseDuration(text);
  if (ms === undefined) throw new UsageError(`${flag} is a duration like 30m, 24h or 720h, not ${text}`);
  return ms;
}

type Flags = ReturnType<typeof parseFlags>;

function parseFlags(args: string[]) {
  try {
    return parseArgs({
      args,
      options: {
        context: { type: 'string' },
        token: { type: 'string' },
        user: { type: 'string' },
        group: { type: 'string', multiple: true },
        'key-type': { type: 'string' },
        label: { type: 'string' },
        'new-context': { type: 'string' },
        expiration: { type: 'string' },
        wait: { type: 'string' },
        renew: { type: 'boolean' },
        'new-key': { type: 'boolean' },
        resume: { type: 'string' },
        module: { type: 'string' },
        'token-label': { type: 'string' },
      },
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
