import { IPC_REQUEST_SCHEMAS, IpcChannel, type InvokeChannel, type IpcRequest, type IpcResponse, type IpcResult } from '../../shared/api/ipcChannels.js';
import type { PendingPrompt, PromptAnswer } from '../../shared/api/prompts.js';
import type { ImportService } from '../kubeconfig/importService.js';
import { isTrustedSender } from './appOrigin.js';
import type { BrokerPort } from './brokerPort.js';

/** Where prompt windows read their question and hand back the answer (the broker's PromptQueue). */
export interface PromptAnswerSink {
  list(): PendingPrompt[];
  answer(promptId: string, answer: PromptAnswer): boolean;
}

/** The prompt windows: one per open prompt. */
export interface PromptWindows {
  show(prompt: PendingPrompt): void;
  closed(promptId: string): void;
}

/**
 * Keeps one window per open prompt: opens a window when a prompt appears and closes it when
 * the prompt is answered, cancelled or times out. Change events also fire when a caller joins
 * an open prompt, so windows are matched by id, never opened per event. Returns the unsubscribe.
 */
export function mirrorPromptWindows(prompts: PromptAnswerSink & { onChange(listener: () => void): () => void }, windows: PromptWindows): () => void {
  const shown = new Set<string>();
  const sync = () => {
    const open = prompts.list();
    const ids = new Set(open.map((p) => p.id));
    for (const id of [...shown].filter((id) => !ids.has(id))) {
      shown.delete(id);
      windows.closed(id);
    }
    for (const prompt of open.filter((p) => !shown.has(p.id))) {
      shown.add(prompt.id);
      windows.show(prompt);
    }
  };
  sync();
  return prompts.onChange(sync);
}

export type IpcHandlers = { readonly [C in InvokeChannel]: (request: IpcRequest<C>) => Promise<IpcResponse<C>> };

/**
 * The main-process side of each channel: a call into the broker's ports. Without an importer
 * (a shell that has not wired one) the import channels answer with what to do instead.
 */
export function ipcHandlers(broker: BrokerPort, prompts: PromptAnswerSink, importer?: ImportService): IpcHandlers {
  const importing = (): ImportService => {
    if (!importer) throw Object.assign(new Error('this window cannot import kubeconfigs'), { hint: 'run kubecred import in a terminal' });
    return importer;
  };
  return {
    [IpcChannel.ListProfiles]: () => broker.listProfiles(),
    [IpcChannel.Login]: ({ profile }) => broker.login(profile),
    [IpcChannel.Logout]: ({ profile }) => broker.logout(profile),
    [IpcChannel.Refresh]: ({ profile }) => broker.refresh(profile),
    [IpcChannel.LockAll]: () => broker.lockAll(),
    [IpcChannel.PendingPrompts]: async () => prompts.list(),
    [IpcChannel.AnswerPrompt]: async ({ promptId, answer }) => ({ accepted: prompts.answer(promptId, answer) }),
    [IpcChannel.ImportPreview]: () => importing().preview(),
    [IpcChannel.ImportKubeconfig]: ({ fingerprint }) => importing().apply(fingerprint),
  };
}

function failure(message: string, hint?: string): IpcResult<never> {
  return { ok: false, error: hint === undefined ? { message } : { message, hint } };
}

/**
 * One invoke from a renderer: refuse untrusted senders, validate the payload with the
 * channel's zod schema, run the handler, and turn errors into a message the UI can show.
 */
export async function dispatchIpc<C extends InvokeChannel>(handlers: IpcHandlers, channel: C, senderUrl: string | undefined, appOrigin: string, payload: unknown): Promise<IpcResult<IpcResponse<C>>> {
  if (!isTrustedSender(senderUrl, appOrigin)) return failure('this window may not talk to Kubecred');
  const parsed = IPC_REQUEST_SCHEMAS[channel].safeParse(payload);
  if (!parsed.success) return failure(`invalid request on ${channel}: ${parsed.error.issues[0]?.message ?? 'malformed'}`);
  const handler = handlers[channel] as (request: IpcRequest<C>) => Promise<IpcResponse<C>>;
  try {
    return { ok: true, value: await handler(parsed.data) };
  } catch (error) {
    const hint = (error as { hint?: unknown }).hint;
    return failure(error instanceof Error ? error.message : 'the request failed', typeof hint === 'string' ? hint : undefined);
  }
}

/** The part of Electron's ipcMain (and its event) that registration uses, so a fake can stand in. */
export interface IpcMainLike {
  handle(channel: string, listener: (event: { readonly senderFrame: { readonly url: string } | null }, ...args: unknown[]) => Promise<unknown>): void;
  removeHandler(channel: string): void;
}

/** Registers every invoke channel; returns a function that removes them again. */
export function registerIpcHandlers(ipcMain: IpcMainLike, handlers: IpcHandlers, appOrigin: string): () => void {
  const channels = Object.keys(IPC_REQUEST_SCHEMAS) as InvokeChannel[];
  for (const channel of channels) {
    ipcMain.handle(channel, (event, payload) => dispatchIpc(handlers, channel, event.senderFrame?.url, appOrigin, payload));
  }
  return () => channels.forEach((channel) => ipcMain.removeHandler(channel));
}
