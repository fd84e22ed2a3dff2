import { BrokerError } from '../../core/brokerError.js';
import type { FormField } from '../../core/uiPorts.js';
import { v3AuthUrl } from './authUrl.js';
import type { KeystoneSettings } from './keystoneSettings.js';

export const SECRET_FIELD = {
  password: 'password',
  'application-credential': 'application-credential-secret',
} as const;

/**
 * The form for what the profile leaves open: the URL, the user, the application
 * credential, and the secret when the store has none (or `kubecred login` asks anew).
 * Remembering is offered for the secret only: the rest belongs in config.yaml.
 */
export function missingFields(settings: KeystoneSettings, askSecret: boolean, storeName: string): FormField[] {
  const fields: FormField[] = [];
  if (settings.authUrl === undefined)
    fields.push({
      name: 'authUrl',
      label: 'Keystone URL (the v3 endpoint, e.g. https://keystone.example.com:5000/v3)',
      secret: false,
    });
  const needsUser =
    settings.method === 'password' ||
    (settings.applicationCredentialId === undefined && settings.applicationCredentialName !== undefined);
  if (
    settings.method === 'application-credential' &&
    settings.applicationCredentialId === undefined &&
    settings.applicationCredentialName === undefined
  ) {
    fields.push({ name: 'applicationCredentialId', label: 'Application credential ID', secret: false });
  }
  if (needsUser && settings.userId === undefined && settings.username === undefined) {
    fields.push({ name: 'username', label: 'User name', secret: false });
    if (settings.userDomain === undefined)
      fields.push({ name: 'userDomainName', label: 'User domain', secret: false, value: 'Default' });
  }
  if (askSecret) {
    const isPassword = settings.method === 'password';
    fields.push({
      name: SECRET_FIELD[settings.method],
      label: isPassword ? 'Password' : 'Application credential secret',
      secret: true,
    });
    fields.push({
      name: 'remember',
      label: `Remember the ${isPassword ? 'password' : 'secret'} in the ${storeName}`,
      secret: false,
      value: 'no',
      yesNo: true,
    });
  }
  return fields;
}

export interface FormResult {
  readonly settings: KeystoneSettings;
  readonly secret: string | undefined;
  readonly remember: boolean;
}

/** Folds the answers into the settings; every asked field must be answered. */
export function applyAnswers(
  profile: string,
  settings: KeystoneSettings,
  fields: readonly FormField[],
  answers: Record<string, string>,
): FormResult {
  const value = (name: string): string | undefined => {
    const field = fields.find((f) => f.name === name);
    if (!field) return undefined;
    const raw = answers[name] ?? '';
    // Secrets are taken as typed: a password may begin or end with a space.
    const answer = field.secret ? raw : raw.trim();
    if (answer === '')
      throw new BrokerError(
        'locked',
        `the Keystone login for profile "${profile}" came back without "${field.label}"`,
        'fill in every field, or cancel',
      );
    return answer;
  };
  const authUrl = value('authUrl');
  const username = value('username');
  const userDomainName = value('userDomainName');
  const applicationCredentialId = value('applicationCredentialId');
  const remember = ['yes', 'y', 'true', 'on'].includes((answers.remember ?? '').trim().toLowerCase());
  return {
    settings: {
      ...settings,
      ...(authUrl !== undefined ? { authUrl: v3AuthUrl(authUrl, profile) } : {}),
      ...(username !== undefined ? { username } : {}),
      ...(userDomainName !== undefined ? { userDomain: { name: userDomainName } } : {}),
      ...(applicationCredentialId !== undefined ? { applicationCredentialId } : {}),
    },
    secret: value(SECRET_FIELD[settings.method]),
    remember,
  };
}
