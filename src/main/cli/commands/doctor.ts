import { UsageError, type Command } from '../io.js';

export const doctorCommand: Command = {
  name: 'doctor',
  usage: 'kubecred doctor',
  async run() {
    throw new UsageError('kubecred doctor is not built yet');
  },
};
