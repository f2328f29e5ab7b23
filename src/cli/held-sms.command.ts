import { adminCommand, required, UsageError } from './command.js';
import { attachHeldSms, dropHeldSms, listHeldSms } from '../modules/case/index.js';

/**
 * `held-sms`: the guests' SMS that no single case thread could claim (docs/cases.md), newest first; `--attach` one to
 * a case it may belong to (one of its candidates), or `--drop` it.
 */
export const heldSmsCommand = adminCommand({
  usage: 'held-sms [--attach HSMS_ID --case CASE_ID | --drop HSMS_ID]',
  summary: "List the guests' SMS held for the operator; attach one to a case thread, or drop it",
  async run(values, em) {
    const attach = values.attach as string | undefined;
    const drop = values.drop as string | undefined;
    if (attach && drop) throw new UsageError('--attach and --drop go alone');
    if (attach) return { data: await attachHeldSms(em, attach, required(values, 'case')), object: 'casemessage' };
    if (values.case) throw new UsageError('--case goes with --attach');
    if (drop) {
      await dropHeldSms(em, drop);
      return { id: drop, object: 'heldsms', deleted: true };
    }
    const held = await listHeldSms(em);
    return { data: held, object: 'list' };
  },
});
