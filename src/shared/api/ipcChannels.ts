import { z } from 'zod';
import { importRequestSchema, promptAnswerSchema, promptIdSchema, type ImportPreview, type ImportResult, type PendingPrompt } from './prompts.js';
import type { ProfileSummary } from './status.js';

/** Every IPC channel between the Electron main process and the renderer, in one place. */
export enum IpcChannel {
  ListProfiles = 'kubecred:list-profiles',
  Login = 'kubecred:login',
  Logout = 'kubecred:logout',
  Refresh = 'kubecred:refresh',
  LockAll = 'kubecred:lock-all',
  /** The prompts waiting on the user (a prompt window shows the one its URL names). */
  PendingPrompts = 'kubecred:pending-prompts',
  AnswerPrompt = 'kubecred:answer-prompt',
  /** The import wizard: what would move (diff redacted), then the import of exactly that plan. */
  ImportPreview = 'kubecred:import-preview',
  ImportKubeconfig = 'kubecred:import-kubeconfig',
  /** main -> renderer: the profiles changed. */
  StatusChanged = 'kubecred:status-changed',
}

const profileName = z.string().min(1).max(253);

export const profileRequestSchema = z.strictObject({ profile: profileName });
export type ProfileRequest = z.infer<typeof profileRequestSchema>;

export const answerPromptRequestSchema = z.strictObject({ promptId: promptIdSchema, answer: promptAnswerSchema });
export type AnswerPromptRequest = z.infer<typeof answerPromptRequestSchema>;

/** The IPC name for a pending prompt (windows.ts uses it); the contract itself is prompts.ts. */
export type PromptView = PendingPrompt;

/** The signature of each invoke-style channel: what the renderer sends and gets back. */
export interface IpcContract {
  [IpcChannel.ListProfiles]: { request: undefined; response: ProfileSummary[] };
  [IpcChannel.Login]: { request: ProfileRequest; response: { expiresAt: string | null } };
  [IpcChannel.Logout]: { request: ProfileRequest; response: void };
  [IpcChannel.Refresh]: { request: ProfileRequest; response: { expiresAt: string | null } };
  [IpcChannel.LockAll]: { request: undefined; response: void };
  [IpcChannel.PendingPrompts]: { request: undefined; response: PendingPrompt[] };
  [IpcChannel.AnswerPrompt]: { request: AnswerPromptRequest; response: { accepted: boolean } };
  [IpcChannel.ImportPreview]: { request: undefined; response: ImportPreview };
  [IpcChannel.ImportKubeconfig]: { request: { fingerprint: string }; response: ImportResult };
}

export type InvokeChannel = keyof IpcContract;
export type IpcRequest<C extends InvokeChannel> = IpcContract[C]['request'];
export type IpcResponse<C extends InvokeChannel> = IpcContract[C]['response'];

/** Events the main process pushes to the renderer. */
export interface IpcEvents {
  [IpcChannel.StatusChanged]: ProfileSummary[];
}

/** The zod schema each invoke channel's payload must satisfy before a handler sees it. */
export const IPC_REQUEST_SCHEMAS: { readonly [C in InvokeChannel]: z.ZodType<IpcRequest<C>> } = {
  [IpcChannel.ListProfiles]: z.undefined(),
  [IpcChannel.Login]: profileRequestSchema,
  [IpcChannel.Logout]: profileRequestSchema,
  [IpcChannel.Refresh]: profileRequestSchema,
  [IpcChannel.LockAll]: z.undefined(),
  [IpcChannel.PendingPrompts]: z.undefined(),
  [IpcChannel.AnswerPrompt]: answerPromptRequestSchema,
  [IpcChannel.ImportPreview]: z.undefined(),
  [IpcChannel.ImportKubeconfig]: importRequestSchema,
};

/**
 * What every invoke channel answers: the value, or an error the UI may show (a message and a
 * fix; never a stack or a secret). The preload unwraps it, so the renderer sees a plain
 * Promise that rejects with that message.
 */
export type IpcResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: { readonly message: string; readonly hint?: string } };

/** The preload's side of IpcResult: the value, or an Error whose message the UI can show. */
export function unwrapIpcResult<T>(result: IpcResult<T>): T {
  if (result.ok) return result.value;
  const { message, hint } = result.error;
  throw new Error(hint ? `${message}. ${hint}` : message);
}
