import { expect } from 'vitest';
import { BrokerError } from '../../src/main/core/brokerError.js';

/** The BrokerError a promise rejects with; fails the test when it resolves or throws anything else. */
export async function brokerFailure(promise: Promise<unknown>): Promise<BrokerError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, 'expected a BrokerError').toBeInstanceOf(BrokerError);
  return error as BrokerError;
}
