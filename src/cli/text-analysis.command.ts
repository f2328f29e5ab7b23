import { adminCommand, UsageError } from './command.js';
import { analyseExisting } from '../modules/submission/index.js';
import { optionalBusiness } from './analytics.command.js';

const count = (name: string, value: unknown, fallback?: number): number | undefined => {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1_000_000) throw new UsageError(`--${name}: '${value}' is not a whole number from 1 to 1000000`);
  return n;
};

/**
 * `analyse-answers`: reads the text answers stored before the workers read every new one (issue 52), in the CLI's own
 * process. Resumable: stopped anywhere (Ctrl-C, `--limit`), the next run reads only what is still unread. A line on
 * stderr after each batch tells how far it got.
 */
export const analyseAnswersCommand = adminCommand({
  usage: 'analyse-answers [--business BUS_ID] [--batch N] [--limit N]',
  summary: 'Analyse the stored text answers that have no analysis yet (resumable; progress on stderr)',
  async run(values, em) {
    const business = await optionalBusiness(values, em);
    const batch = count('batch', values.batch, 200)!;
    const limit = count('limit', values.limit);
    const result = await analyseExisting(em, {
      business,
      batch,
      limit,
      progress: (done, total, last) => process.stderr.write(`analyse-answers: ${done} of ${total} submissions analysed (last ${last})\n`),
    });
    return { object: 'textanalysisrun', ...result };
  },
});
