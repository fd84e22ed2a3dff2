import type { ImportService } from '../../src/main/kubeconfig/importService.js';
import type { ImportPreview } from '../../src/shared/api/webUiApi.js';

/** A kubeconfig import that previews `preview` and has nothing it could apply: the wizard's empty case. */
export function previewOnlyImport(preview: ImportPreview): ImportService {
  return {
    preview: async () => structuredClone(preview),
    apply: async () => {
      throw new Error('nothing to import');
    },
    undo: async () => {
      throw new Error('nothing to undo');
    },
  };
}
