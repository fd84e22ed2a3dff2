import { contextBridge, ipcRenderer } from 'electron';
import { IpcChannel, type IpcContract } from '../../shared/api/ipcChannels.js';
import type { ProfileSummary } from '../../shared/api/status.js';

/** The renderer's only door to the main process: a few typed calls, no ipcRenderer. */
const api = {
  listProfiles: (): Promise<IpcContract[IpcChannel.ListProfiles]['response']> => ipcRenderer.invoke(IpcChannel.ListProfiles),
  logout: (profile: string): Promise<void> => ipcRenderer.invoke(IpcChannel.Logout, { profile }),
  onStatusChanged: (listener: (profiles: ProfileSummary[]) => void): (() => void) => {
    const handler = (_event: unknown, profiles: ProfileSummary[]) => listener(profiles);
    ipcRenderer.on(IpcChannel.StatusChanged, handler);
    return () => ipcRenderer.off(IpcChannel.StatusChanged, handler);
  },
};

export type KubecredBridge = typeof api;
contextBridge.exposeInMainWorld('kubecred', api);
