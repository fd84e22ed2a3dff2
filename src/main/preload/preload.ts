import { contextBridge, ipcRenderer } from 'electron';
import { IpcChannel, unwrapIpcResult, type InvokeChannel, type IpcEvents, type IpcRequest, type IpcResponse, type IpcResult } from '../../shared/api/ipcChannels.js';
import type { PromptAnswer } from '../../shared/api/prompts.js';

// Sandboxed preloads load as one CommonJS file: the build bundles this with ipcChannels and prompts.

async function invoke<C extends InvokeChannel>(channel: C, request?: IpcRequest<C>): Promise<IpcResponse<C>> {
  return unwrapIpcResult((await ipcRenderer.invoke(channel, request)) as IpcResult<IpcResponse<C>>);
}

/** The renderer's only door to the main process: a few typed calls; no ipcRenderer, no events objects. */
const api = {
  listProfiles: () => invoke(IpcChannel.ListProfiles),
  login: (profile: string) => invoke(IpcChannel.Login, { profile }),
  logout: (profile: string) => invoke(IpcChannel.Logout, { profile }),
  refresh: (profile: string) => invoke(IpcChannel.Refresh, { profile }),
  lockAll: () => invoke(IpcChannel.LockAll),
  pendingPrompts: () => invoke(IpcChannel.PendingPrompts),
  answerPrompt: (promptId: string, answer: PromptAnswer) => invoke(IpcChannel.AnswerPrompt, { promptId, answer }),
  importPreview: () => invoke(IpcChannel.ImportPreview),
  importKubeconfig: (fingerprint: string) => invoke(IpcChannel.ImportKubeconfig, { fingerprint }),
  onStatusChanged: (listener: (profiles: IpcEvents[IpcChannel.StatusChanged]) => void): (() => void) => {
    const handler = (_event: unknown, profiles: IpcEvents[IpcChannel.StatusChanged]) => listener(profiles);
    ipcRenderer.on(IpcChannel.StatusChanged, handler);
    return () => void ipcRenderer.off(IpcChannel.StatusChanged, handler);
  },
};

export type KubecredBridge = typeof api;
contextBridge.exposeInMainWorld('kubecred', api);
