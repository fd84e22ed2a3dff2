import { UsageError, type Command } from '../io.js';

export const importCommand: Command = {
  name: 'import',
  usage: 'kubecred import',
  async run() {
    throw new UsageError('kubecred import is not built yet');
  },
};
