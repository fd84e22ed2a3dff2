import { ok, warn, type Check } from '../finding.js';

/**
 * The native shim is the fast path (~2 ms per kubectl call against ~65 ms for the Node CLI).
 * Without one for this platform everything still works through bin/kubecred, only slower.
 */
export function shimCheck(shimPath: string | undefined, platform: string, arch: string, nodeCli: string): Check {
  return {
    name: 'shim',
    async run() {
      if (shimPath) return [ok('native shim', shimPath)];
      return [
        warn(
          'native shim',
          `none built for ${platform}-${arch}; kubeconfigs must call ${nodeCli}, which costs ~65 ms per kubectl call`,
          'rebuild Kubecred for this platform (npm run build), or keep using bin/kubecred as the exec command',
        ),
      ];
    },
  };
}
