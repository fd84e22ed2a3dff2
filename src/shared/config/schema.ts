import { z } from 'zod';
import { EXEC_API_VERSIONS } from '../execCredential.js';
import { parseDuration } from '../duration.js';
import { CACHE_KEY_TYPES } from '../registry/credentialProvider.js';
import { isValidMatcher } from '../registry/imageMatcher.js';
import { guardSchema, proxySchema } from './proxySchema.js';
import { secretStoreRefSchema, tokenOfStoreRef, TOKEN_NAME_PATTERN } from './secretStoreRef.js';

export const profileName = z.string().regex(/^[a-z0-9]([a-z0-9._-]{0,61}[a-z0-9])?$/, {
  message:
    'a profile name is 1-63 lower-case letters, digits, ".", "_" or "-", starting and ending with a letter or digit',
});

const MAX_PIN_GRACE_MS = 60 * 60_000;

const duration = z.string().refine((text) => parseDuration(text) !== undefined, {
  message: 'a duration looks like 30s, 15m, 1h or 1h30m',
});

/** When the user must approve a program's request for the profile's credential: the one list of them. */
export const approvalPolicySchema = z.enum(['never', 'once-per-process', 'always']);
export type ApprovalPolicy = z.infer<typeof approvalPolicySchema>;
const approvalPolicy = approvalPolicySchema.default('never');

/** The secret field a proxy's password is kept under, for a proxy URL that names only a user. */
export const PROXY_PASSWORD_FIELD = 'proxy-password';

/**
 * A profile's own HTTP proxy, as kubeconfig's cluster `proxy-url`: http(s)://[user@]host:port.
 * A password never goes in config.yaml (a file, in plaintext): the keychain keeps it.
 */
const proxyUrl = z
  .string()
  .url()
  .refine((text) => /^https?:\/\//i.test(text), { message: 'a proxy URL starts with http:// or https://' })
  .refine((text) => !/^[a-z]+:\/\/[^/?#@]*:[^/?#@]*@/i.test(text), {
    message: `no password in config.yaml: name only the user (http://user@host:port) and keep the password with kubecred secret set <profile> ${PROXY_PASSWORD_FIELD}`,
  });

/**
 * The proxy the broker's own connections take, pinned in config.yaml. Present (even empty: no
 * proxy at all), it replaces the proxy variables of whichever program started the broker, which
 * a project's .envrc may have set (security review 4, D10).
 */
export const networkSchema = z.strictObject({
  /** As HTTPS_PROXY: the proxy for https:// servers. */
  httpsProxy: proxyUrl.optional(),
  /** As HTTP_PROXY: the proxy for http:// servers. */
  httpProxy: proxyUrl.optional(),
  /** As NO_PROXY: the hosts, domains and CIDRs that go direct. */
  noProxy: z.string().optional(),
});
export type NetworkConfig = z.infer<typeof networkSchema>;

/** What every profile has, whatever its provider. */
const profileBase = {
  name: profileName,
  description: z.string().optional(),
  approval: approvalPolicy,
  /** The HTTP proxy this profile's connections go through, where not the person's (HTTPS_PROXY). */
  proxyUrl: proxyUrl.optional(),
  proxy: proxySchema.optional(),
  /** Needs proxy: the proxy is what sees each request. */
  guard: guardSchema.optional(),
};

const tokenName = z.string().regex(TOKEN_NAME_PATTERN, {
  message: 'a token name is 1-63 lower-case letters, digits, ".", "_" or "-"',
});

/** Where a profile's secrets live: the OS keychain, the encrypted file, or a PKCS#11 token. */
const secretStoreRef = secretStoreRefSchema;

export const tokenSchema = z
  .strictObject({
    name: tokenName,
    /** Path of the PKCS#11 module (.so, .dylib, .dll), e.g. /usr/lib/softhsm/libsofthsm2.so. */
    module: z.string().min(1),
    label: z.string().min(1).max(32).optional(),
    serial: z.string().min(1).max(16).optional(),
    /** How long the PIN is kept in broker memory after a successful login. */
    // A PIN kept longer than this outlives the user's attention: hardware-key peers cap it at an hour.
    pinGrace: duration
      .default('15m')
      .refine((text) => (parseDuration(text) ?? 0) <= MAX_PIN_GRACE_MS, { message: 'keep a PIN for at most 1h' }),
  })
  .refine((t) => t.label !== undefined || t.serial !== undefined, { message: 'name the token by label or serial' });
export type TokenConfig = z.infer<typeof tokenSchema>;

const staticProfile = z.strictObject({
  ...profileBase,
  provider: z.literal('static'),
  secretStore: secretStoreRef.optional(),
  /** The client certificate and its private key as objects on a PKCS#11 token, found by label. */
  tokenCertificate: z.strictObject({ token: tokenName, label: z.string().min(1) }).optional(),
});

/** kubeconfig's exec env is a list of {name, value}; a map is accepted too. */
const envList = z.union([
  z.array(z.strictObject({ name: z.string().min(1), value: z.string() })),
  z.record(z.string(), z.string()).transform((map) => Object.entries(map).map(([name, value]) => ({ name, value }))),
]);

/**
 * A program to run: an absolute path, or a bare name looked up on PATH. A relative path would
 * resolve against whatever directory the broker runs in, which no profile should depend on.
 */
const programPath = z
  .string()
  .min(1)
  .refine((command) => /^(\/|[A-Za-z]:[\\/]|\\\\)/.test(command) || !/[\\/]/.test(command), {
    message:
      "use an absolute path, or a bare program name found on PATH (a relative path would depend on the broker's working directory)",
  });

const execProfile = z.strictObject({
  ...profileBase,
  provider: z.literal('exec'),
  command: programPath,
  args: z.array(z.string()).default([]),
  env: envList.default([]),
  apiVersion: z.enum(EXEC_API_VERSIONS).default('client.authentication.k8s.io/v1'),
  /** How long to keep a credential that comes without expirationTimestamp. */
  ttl: duration.default('5m'),
  timeout: duration.default('60s'),
});

/**
 * OIDC (the kubelogin use case): authorization code + PKCE in the system browser, or the
 * device grant; the ID token is the bearer. A confidential client's secret and the refresh
 * token live in the profile's secret store (fields client-secret, refresh-token).
 */
const oidcProfile = z.strictObject({
  ...profileBase,
  provider: z.literal('oidc'),
  secretStore: secretStoreRef.optional(),
  issuer: z.string().url(),
  clientId: z.string().min(1),
  scopes: z.array(z.string().min(1)).default(['openid', 'offline_access']),
  extraAuthParams: z.record(z.string(), z.string()).default({}),
  /** auto: the browser when one can be opened, else the device grant. */
  flow: z.enum(['auto', 'browser', 'device']).default('auto'),
  /** Loopback redirect port; 0 picks a free one (some IdPs need a fixed one). */
  redirectPort: z.number().int().min(0).max(65535).default(0),
  /** PEM bundle to trust for a private issuer. */
  caFile: z.string().min(1).optional(),
  /** A token is renewed this long before its exp, for clocks that disagree. */
  clockSkew: duration.default('30s'),
});

/**
 * OpenStack Keystone v3 (the client-keystone-auth use case). Fields take the OS_* names of
 * client-keystone-auth in `environment` too; the password or application credential secret
 * lives in the secret store (fields password, application-credential-secret) or is asked.
 */
const keystoneProfile = z.strictObject({
  ...profileBase,
  provider: z.literal('keystone'),
  secretStore: secretStoreRef.optional(),
  authUrl: z.string().url().optional(),
  method: z.enum(['password', 'application-credential']).default('password'),
  username: z.string().optional(),
  userId: z.string().optional(),
  userDomainName: z.string().optional(),
  userDomainId: z.string().optional(),
  projectName: z.string().optional(),
  projectId: z.string().optional(),
  projectDomainName: z.string().optional(),
  projectDomainId: z.string().optional(),
  domainName: z.string().optional(),
  domainId: z.string().optional(),
  applicationCredentialId: z.string().optional(),
  applicationCredentialName: z.string().optional(),
  /** OS_AUTH_URL, OS_USERNAME, OS_PROJECT_NAME, ... as client-keystone-auth reads them. */
  environment: z.record(z.string().regex(/^OS_[A-Z_]+$/), z.string()).default({}),
  caFile: z.string().min(1).optional(),
});

/**
 * AWS EKS: a presigned STS GetCallerIdentity URL made exactly as `aws eks get-token` does,
 * from keys in the secret store (aws-access-key-id, aws-secret-access-key, aws-session-token).
 */
const eksProfile = z.strictObject({
  ...profileBase,
  provider: z.literal('eks'),
  secretStore: secretStoreRef.optional(),
  clusterId: z.string().min(1),
  // What the aws CLI (botocore) accepts as a region name: one DNS label. New partitions
  // (eusc-de-east-1) keep arriving, so no shape beyond that is assumed.
  region: z.string().regex(/^[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$/, {
    message: 'an AWS region is one DNS label, like us-east-1',
  }),
  /** Override the STS endpoint (private VPC endpoints, tests). */
  stsEndpoint: z.string().url().optional(),
  /**
   * A named profile of the aws CLI's files (AWS_CONFIG_FILE / AWS_SHARED_CREDENTIALS_FILE, else
   * ~/.aws): its long-lived keys, read at each login, instead of keys in the secret store.
   */
  awsProfile: z
    .string()
    .regex(/^[\w.@+=,-]{1,64}$/, { message: 'an AWS profile name: letters, digits and . @ + = , - _' })
    .optional(),
  /** A role to assume (sts:AssumeRole) with the keys above; the session is kept in memory and shared. */
  roleArn: z
    .string()
    .regex(/^arn:[\w-]+:iam::\d{12}:role\/[\w+=,.@/-]{1,512}$/, {
      message: 'a role ARN, like arn:aws:iam::123456789012:role/admin',
    })
    .optional(),
  roleSessionName: z
    .string()
    .regex(/^[\w+=,.@-]{2,64}$/, { message: 'a role session name: 2 to 64 of letters, digits and + = , . @ - _' })
    .optional(),
  externalId: z
    .string()
    .regex(/^[\w+=,.@:/-]{2,1224}$/, { message: 'an external id: 2 to 1224 of letters, digits and + = , . @ : / - _' })
    .optional(),
  /** The session's length in seconds (STS allows 900 up to the role's maximum, at most 43200). */
  durationSeconds: z.number().int().min(900).max(43_200).optional(),
  /**
   * An IAM Identity Center (SSO) role, without the aws CLI's files: where to log in and which
   * role to use. (An AWS profile with sso_session works through awsProfile.)
   */
  sso: z
    .strictObject({
      startUrl: z.string().url(),
      region: z
        .string()
        .regex(/^[a-z0-9-]{1,63}$/, { message: 'the region of IAM Identity Center, like eu-central-1' }),
      accountId: z.string().regex(/^\d{12}$/, { message: 'an AWS account id: twelve digits' }),
      roleName: z.string().min(1).max(128),
      scopes: z.array(z.string().min(1)).optional(),
    })
    .optional(),
  /** An MFA device: its code is asked once per session (with roleArn: for the role; alone: sts:GetSessionToken). */
  mfaSerial: z
    .string()
    .regex(/^(arn:[\w-]+:iam::\d{12}:(mfa|u2f)\/[\w+=,.@/-]+|[A-Z0-9]{9,256})$/, {
      message: 'an MFA device ARN, like arn:aws:iam::123456789012:mfa/alice, or a hardware device serial number',
    })
    .optional(),
});

export const profileSchema = z.discriminatedUnion('provider', [
  staticProfile,
  execProfile,
  oidcProfile,
  keystoneProfile,
  eksProfile,
]);
export type ProfileConfig = z.infer<typeof profileSchema>;
export type StaticProfileConfig = z.infer<typeof staticProfile>;
export type ExecProfileConfig = z.infer<typeof execProfile>;
export type OidcProfileConfig = z.infer<typeof oidcProfile>;
export type KeystoneProfileConfig = z.infer<typeof keystoneProfile>;
export type EksProfileConfig = z.infer<typeof eksProfile>;

const imageMatcher = z.string().refine(isValidMatcher, {
  message:
    'an image matcher is a registry host with optional port and path, globs only in the host: *.example.com, registry.local:5000/team',
});

/**
 * Image registry credentials, for the kubelet (credential provider) and for docker, podman
 * and skopeo (credential helper). The password comes from the secret store (fields
 * username, password, server-url; `docker-credential-kubecred store` writes them) or from
 * passwordCommand, whose stdout is the password (aws ecr get-login-password).
 */
export const registrySchema = z
  .strictObject({
    name: profileName,
    description: z.string().optional(),
    matchImages: z.array(imageMatcher).min(1, { message: 'name at least one image matcher' }),
    username: z.string().min(1).optional(),
    passwordCommand: z
      .strictObject({
        command: programPath,
        args: z.array(z.string()).default([]),
        env: envList.default([]),
        timeout: duration.default('60s'),
      })
      .optional(),
    /** How long the broker keeps a command's password, and the kubelet any answer. */
    cacheDuration: duration.default('5m'),
    cacheKeyType: z.enum(CACHE_KEY_TYPES).default('Registry'),
    /** Ask before a program gets this registry's login (docker, podman, skopeo), as for profiles. */
    approval: approvalPolicy,
  })
  .refine((r) => r.passwordCommand === undefined || r.username !== undefined, {
    message: 'a registry with passwordCommand needs username: (for Amazon ECR it is AWS)',
    path: ['username'],
  });
export type RegistryConfig = z.infer<typeof registrySchema>;

/**
 * daemon.log and audit.jsonl: each is rotated when it reaches maxBytes, keeping `keep` older
 * files (.1 the newest), so neither can fill the disk, whoever makes the broker write.
 */
export const logLimitsSchema = z.strictObject({
  maxBytes: z
    .number()
    .int()
    .min(4096, { message: 'logs.maxBytes is at least 4096' })
    .max(1024 ** 3, { message: 'logs.maxBytes is at most 1 GiB' })
    .default(10 * 1024 * 1024),
  keep: z.number().int().min(0).max(50, { message: 'logs.keep is at most 50' }).default(3),
});
export type LogLimits = z.infer<typeof logLimitsSchema>;
export const DEFAULT_LOG_LIMITS: LogLimits = logLimitsSchema.parse({});

export const configSchema = z
  .strictObject({
    /** The store for profiles that name none. encrypted-file is for machines with no keychain. */
    secretStore: z.enum(['keychain', 'encrypted-file']).default('keychain'),
    encryptedFile: z.strictObject({ path: z.string().min(1).optional() }).optional(),
    tokens: z.array(tokenSchema).default([]),
    profiles: z.array(profileSchema).default([]),
    /** Optional rather than defaulted, so code that builds a config by hand need not name it. */
    registries: z.array(registrySchema).optional(),
    /** Optional for the same reason; DEFAULT_LOG_LIMITS when absent. */
    logs: logLimitsSchema.optional(),
    /** Absent: the proxy variables of the environment the broker started in. */
    network: networkSchema.optional(),
  })
  .superRefine((config, ctx) => {
    const seen = new Set<string>();
    const tokens = new Set(config.tokens.map((t) => t.name));
    config.tokens.forEach((token, index) => {
      if (config.tokens.findIndex((t) => t.name === token.name) !== index)
        ctx.addIssue({
          code: 'custom',
          path: ['tokens', index, 'name'],
          message: `token "${token.name}" is defined twice`,
        });
    });
    config.profiles.forEach((profile, index) => {
      if (seen.has(profile.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['profiles', index, 'name'],
          message: `profile "${profile.name}" is defined twice`,
        });
      }
      seen.add(profile.name);
      const storeToken = tokenOfStoreRef('secretStore' in profile ? profile.secretStore : undefined);
      if (storeToken && !tokens.has(storeToken))
        ctx.addIssue({
          code: 'custom',
          path: ['profiles', index, 'secretStore'],
          message: `no token "${storeToken}" under tokens:`,
        });
      if (profile.provider === 'static' && profile.tokenCertificate && !tokens.has(profile.tokenCertificate.token)) {
        ctx.addIssue({
          code: 'custom',
          path: ['profiles', index, 'tokenCertificate', 'token'],
          message: `no token "${profile.tokenCertificate.token}" under tokens:`,
        });
      }
      if (profile.guard && !profile.proxy)
        ctx.addIssue({
          code: 'custom',
          path: ['profiles', index, 'guard'],
          message:
            'a guard works through the exec proxy, which sees each request: give the profile proxy: {port, server}',
        });
      if (profile.proxy) {
        const port = profile.proxy.port;
        const first = config.profiles.findIndex((other) => other.proxy?.port === port);
        if (first !== index)
          ctx.addIssue({
            code: 'custom',
            path: ['profiles', index, 'proxy', 'port'],
            message: `port ${port} is the proxy port of profile "${config.profiles[first]!.name}" too: give each profile its own`,
          });
      }
    });
    config.registries?.forEach((registry, index, registries) => {
      if (registries.findIndex((r) => r.name === registry.name) !== index)
        ctx.addIssue({
          code: 'custom',
          path: ['registries', index, 'name'],
          message: `registry "${registry.name}" is defined twice`,
        });
    });
  });
export type KubecredConfig = z.infer<typeof configSchema>;

/** What an absent or empty config.yaml means. */
export const EMPTY_CONFIG: KubecredConfig = configSchema.parse({});
