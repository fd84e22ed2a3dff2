import type { ErrorCode } from '../../shared/api/errors.js';
import { BrokerError } from './brokerError.js';

/**
 * The person at a prompt said no: cancelled a PIN, passphrase, Keystone or login prompt. Its
 * own class, not a code: the caller sees the same status and words as before, and the broker
 * knows not to ask the same program again the moment it retries.
 */
export class UserDeclined extends BrokerError {
  constructor(code: ErrorCode, message: string, hint?: string) {
    super(code, message, hint);
    this.name = 'UserDeclined';
  }
}
