import type { ProfileSummary } from './status.js';

/** Every IPC channel between the Electron main process and the renderer, in one place. */
export enum IpcChannel {
  ListProfiles = 'kubecred:list-profiles',
  Login = 'kubecred:login',
  Logout = 'kubecred:logout',
  StatusChanged = 'kubecred:status-changed',
}

/** The signature of each invoke-style channel: what the renderer sends and gets back. */
export interface IpcContract {
  [IpcChannel.ListProfiles]: { request: void; response: ProfileSummary[] };
  [IpcChannel.Login]: { request: { profile: string }; response: void };
  [IpcChannel.Logout]: { request: { profile: string }; response: void };
}
