import { readDaemonLog, type TestBroker } from './broker.js';

/**
 * The brokers a test file starts one after another, each in place of the last, as a person
 * restarts theirs with other settings. Every one's output is kept after it stops: a secret one
 * broker logged fails the closing check even when a later broker logged none.
 */
export interface BrokerSuccession {
  /** Stops the running broker, if any, and starts the next. */
  next(start: () => Promise<TestBroker>): Promise<TestBroker>;
  stop(): Promise<void>;
  /** What the brokers logged: each one's output, and the daemon log of one a CLI call started. */
  logs(): Promise<string>;
}

export function brokerSuccession(home: () => string): BrokerSuccession {
  const started: TestBroker[] = [];
  const stop = async () => void (await started.at(-1)?.stop());
  return {
    next: async (start) => {
      await stop();
      const broker = await start();
      started.push(broker);
      return broker;
    },
    stop,
    logs: async () => started.map((broker) => broker.output()).join('') + (await readDaemonLog(home())),
  };
}
