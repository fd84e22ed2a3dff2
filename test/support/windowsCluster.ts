import path from 'node:path';
import { startKubeApiServer, type KubeApiServer, type StaticTokenUser } from './kubeApiServer.js';
import { createTestPki, type TestPki } from './pki.js';
import { makeTempHome, type TempHome } from './tempHome.js';
import { wineWorld, type WineWorld } from './wine.js';

/** What a Windows end-to-end test starts from: the Wine world, a home, and a real kube-apiserver knowing `tokens`. */
export interface WindowsCluster {
  readonly world: WineWorld;
  readonly home: TempHome;
  readonly pki: TestPki;
  readonly api: KubeApiServer;
}

export async function startWindowsCluster(tokens: readonly StaticTokenUser[]): Promise<WindowsCluster> {
  const world = wineWorld();
  const home = await makeTempHome();
  const pki = await createTestPki(path.join(home.dir, 'pki'));
  const api = await startKubeApiServer({ dir: path.join(home.dir, 'apiserver'), pki, tokens });
  return { world, home, pki, api };
}
