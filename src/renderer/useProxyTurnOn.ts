import { useState } from 'react';
import type { ProxyTurnedOn } from '../shared/api/webUiApi.js';
import { refusalWords } from './refusalWords.js';

/** One profile's exec proxy being turned on: where the call stands, and how to start it. */
export interface ProxyTurnOn {
  readonly busy: boolean;
  /** The broker's answer once the proxy is on: the listener's port, the cluster, the contexts. */
  readonly done: ProxyTurnedOn | null;
  /** The broker's refusal in its words (message, then hint); the button stays for another try. */
  readonly problem: string | null;
  start(): void;
}

/** `turnOn` calls the contract's turnOnProxy for one profile; the profile's page and the import wizard share this. */
export function useProxyTurnOn(turnOn: () => Promise<ProxyTurnedOn>): ProxyTurnOn {
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<ProxyTurnedOn | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const start = () => {
    setBusy(true);
    setProblem(null);
    turnOn().then(
      (answer) => (setDone(answer), setBusy(false)),
      (error: unknown) => (setProblem(refusalWords(error)), setBusy(false)),
    );
  };
  return { busy, done, problem, start };
}
