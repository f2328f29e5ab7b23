import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { may, ReadOnlyNote } from '../roles';
import { graphql, request, type ResultOf } from '../graphql';
import { BUILT_IN_THEMES, SENTIMENT_LABELS } from '../../shared/themes';
import {
  CardForm,
  Cards,
  DoneNote,
  Empty,
  Field,
  FormError,
  Loaded,
  Options,
  SaveButton,
  formatCount,
  formatDay,
  plural,
  useCardEdits,
  useLoad,
  useSubmit,
} from '../ui';
import { Pager } from '../lists';

const AlertRulesScreen = graphql(`
  query AlertRulesScreen($business: ID!, $page: Int!, $members: Boolean!, $themes: Boolean!) {
    alertRules(business: $business, page: $page, pageSize: 20, orderBy: [{ field: name, order: asc }]) {
      total page hasMore
      data {
        id name enabled severity escalateAfterMinutes
        when { maxRating maxNps keywords themes sentiment locations surveys }
        notify { channel to role member status confirmedAt askedAt }
      }
    }
    locations(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
    surveys(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { data { id name } }
    members(business: $business, pageSize: 100) @include(if: $members) { data { id name email } }
    themeSettings(business: $business) @include(if: $themes) { words { theme } }
  }
`);
const CreateAlertRule = graphql(`
  mutation CreateAlertRule($business: ID!, $input: CreateAlertRuleInput!) { createAlertRule(business: $business, input: $input) { id name } }
`);
const UpdateAlertRule = graphql(`
  mutation UpdateAlertRule($business: ID!, $id: ID!, $input: UpdateAlertRuleInput!) { updateAlertRule(business: $business, id: $id, input: $input) { id name enabled } }
`);
const DeleteAlertRule = graphql(`
  mutation DeleteAlertRule($business: ID!, $id: ID!) { deleteAlertRule(business: $business, id: $id) }
`);

type Data = ResultOf<typeof AlertRulesScreen>;
type Rule = Data['alertRules']['data'][number];
type Recipient = Rule['notify'][number];
/** The business's lists a rule's ids are named from: locations, surveys, and members (when the role may read them). */
interface Names {
  locations: { id: string; name: string }[];
  surveys: { id: string; name: string }[];
  members: Map<string, string>;
  /** The themes a rule may name: the built-in ones, then the business's own. */
  themes: string[];
}

const ROLE_WORDS: Record<string, string> = { owner: 'Every owner', manager: 'Every manager' };

/** Who a recipient is, in words. */
function whoOf(r: Recipient, names: Names): string {
  if (r.role) return `${ROLE_WORDS[r.role] ?? r.role}, at their account’s e-mail`;
  if (r.member) return `${names.members.get(r.member) ?? 'A member'}, at their account’s e-mail`;
  return `${r.to} by ${r.channel === 'sms' ? 'SMS' : 'e-mail'}`;
}

/** Whether a recipient is told, in the words of the person setting the rule up. */
function consentOf(r: Recipient): string {
  switch (r.status) {
    case 'member':
      return 'told at once (members need no confirmation)';
    case 'removed':
      return 'no longer a member of the business: told nothing';
    case 'pending':
      return r.askedAt != null
        ? `waiting for them to confirm (asked on ${formatDay(r.askedAt)}): told nothing until they agree`
        : 'waiting for them to confirm: told nothing until they agree';
    case 'confirmed':
      return `confirmed${r.confirmedAt != null ? ` on ${formatDay(r.confirmedAt)}` : ''}: told of each match`;
    case 'declined':
      return 'declined: this business never messages them again';
    default:
      return r.status;
  }
}

/** "A rating of 2 or less, an NPS of 6 or less, or a text answer with “cold” or “rude”". */
function conditionOf(when: Rule['when']): string {
  const kinds = [
    when.maxRating != null && `a rating of ${formatCount(when.maxRating)} or less (on the metric’s own scale)`,
    when.maxNps != null && `an NPS answer of ${formatCount(when.maxNps)} or less`,
    when.keywords?.length && `a text answer with ${when.keywords.map((k) => `“${k}”`).join(' or ')}`,
    when.themes?.length && `a text answer read as ${when.sentiment ? `${when.sentiment} on ` : ''}${when.themes.join(' or ')}`,
    !when.themes?.length && when.sentiment && `a text answer read as ${when.sentiment}`,
  ].filter(Boolean) as string[];
  const text = kinds.length > 1 ? `${kinds.slice(0, -1).join(', ')} or ${kinds[kinds.length - 1]}` : (kinds[0] ?? 'nothing');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const namesOf = (ids: readonly string[] | null, list: { id: string; name: string }[], every: string, gone: string) =>
  ids?.length ? ids.map((id) => list.find((x) => x.id === id)?.name ?? gone).join(', ') : every;

/** Alert rules: which answers open a case in the Inbox, and who is told at once. */
export default function AlertRules({ session, query }: ScreenProps) {
  const business = session.business;
  const page = Number(query.get('page') ?? 0) || 0;
  // 20 a page: each rule's recipients weigh on the person's API quota as a list of their own (graphql/limits.ts).
  const state = useLoad(
    () => request(AlertRulesScreen, { business, page, members: may(session, 'members:read'), themes: may(session, 'business:read') }),
    `${business}/${page}`,
  );
  const mayChange = may(session, 'alerts:write');
  const edits = useCardEdits(state.reload);
  return (
    <>
      <h1 tabIndex={-1}>Alert rules</h1>
      <p>
        When a guest’s completed answer matches an enabled rule, a case opens in the <a href="/portal/cases">Inbox</a> and the rule’s recipients are told at
        once. Outside addresses and numbers are asked once to confirm, and told nothing until they agree.
      </p>
      {!mayChange && <ReadOnlyNote scope="alerts:write">add, change, turn off and delete alert rules. You can read them here.</ReadOnlyNote>}
      <DoneNote done={edits.done} />
      <Loaded state={state} what="alert rules">
        {(data) => {
          const names: Names = {
            locations: data.locations.data,
            surveys: data.surveys.data,
            members: new Map((data.members?.data ?? []).map((m) => [m.id, m.name ?? m.email])),
            themes: [...new Set<string>([...BUILT_IN_THEMES, ...(data.themeSettings?.words ?? []).map((w) => w.theme)])],
          };
          return (
            <>
              {data.alertRules.data.length ? (
                <Cards
                  label="Alert rules"
                  items={data.alertRules.data}
                  facts={(r) => <RuleFacts rule={r} names={names} />}
                  edits={edits}
                  mayChange={mayChange}
                  consequence="New answers no longer open cases by it; cases it opened stay, with their severity and reason."
                  onDelete={(r) => request(DeleteAlertRule, { business, id: r.id })}
                  actions={(r) => <OnOff business={business} rule={r} onChanged={edits.changed} />}
                  form={(r) => <RuleForm business={business} rule={r} names={names} onSaved={(name) => edits.changed(`${name} saved.`)} />}
                />
              ) : page > 0 ? (
                <Empty>
                  No rule on this page. <a href="/portal/alerts">Go to the first page</a>.
                </Empty>
              ) : (
                <Empty>No alert rule yet, so no answer opens a case{mayChange ? ': add the first one below.' : '. An owner or a manager can add them.'}</Empty>
              )}
              {(page > 0 || data.alertRules.hasMore) && <Pager list={data.alertRules} query={query} />}
              {mayChange && <RuleForm business={business} names={names} onSaved={(name) => edits.changed(`${name} added.`)} />}
            </>
          );
        }}
      </Loaded>
    </>
  );
}

function RuleFacts({ rule: r, names }: { rule: Rule; names: Names }) {
  return (
    <dl class="facts wrap">
      <dt>Status</dt>
      <dd>
        <span class={`status ${r.enabled ? 'active' : ''}`}>{r.enabled ? 'on' : 'off'}</span>
        {r.enabled ? '' : ': opens no case until turned on'}
      </dd>
      <dt>Severity</dt>
      <dd>
        {r.severity === 'urgent'
          ? `Urgent${r.escalateAfterMinutes != null ? `: the owners are told if its case is still open and unassigned after ${plural(r.escalateAfterMinutes, 'minute')}` : ''}`
          : 'Normal'}
      </dd>
      <dt>When</dt>
      <dd>{conditionOf(r.when)}</dd>
      <dt>Locations</dt>
      <dd>{namesOf(r.when.locations, names.locations, 'Every location', 'a deleted location')}</dd>
      <dt>Surveys</dt>
      <dd>{namesOf(r.when.surveys, names.surveys, 'Every survey', 'a deleted survey')}</dd>
      <dt>Who is told</dt>
      <dd>
        <ul class="recipients">
          {r.notify.map((n, i) => (
            <li key={i}>
              {whoOf(n, names)}: <em>{consentOf(n)}</em>
            </li>
          ))}
        </ul>
      </dd>
    </dl>
  );
}

/** Turns a rule off (it opens no case) or on again, keeping everything else. */
function OnOff({ business, rule, onChanged }: { business: string; rule: Rule; onChanged: (what: string) => void }) {
  const submit = useSubmit();
  return (
    <>
      <button
        type="button"
        class="secondary"
        disabled={submit.busy}
        aria-label={`${rule.enabled ? 'Turn off' : 'Turn on'} ${rule.name}`}
        onClick={async () => {
          const saved = (await submit.run(() => request(UpdateAlertRule, { business, id: rule.id, input: { enabled: !rule.enabled } })))?.updateAlertRule;
          if (saved) onChanged(`${saved.name} turned ${saved.enabled ? 'on' : 'off'}.`);
        }}
      >
        {rule.enabled ? 'Turn off' : 'Turn on'}
      </button>
      {submit.error ? <FormError error={submit.error} /> : null}
    </>
  );
}

interface Outside {
  channel: 'email' | 'sms';
  to: string;
}

/** The form's state: numbers as typed, keywords one per line, so nothing typed is lost when the API refuses it. */
function formOf(rule?: Rule) {
  const notify = rule?.notify ?? [{ role: 'owner' } as Recipient];
  return {
    name: rule?.name ?? '',
    enabled: rule?.enabled ?? true,
    severity: rule?.severity ?? 'normal',
    escalate: rule?.escalateAfterMinutes == null ? '' : String(rule.escalateAfterMinutes),
    maxRating: rule?.when.maxRating == null ? '' : String(rule.when.maxRating),
    maxNps: rule?.when.maxNps == null ? '' : String(rule.when.maxNps),
    keywords: (rule?.when.keywords ?? []).join('\n'),
    locations: rule?.when.locations ?? [],
    surveys: rule?.when.surveys ?? [],
    themes: rule?.when.themes ?? [],
    sentiment: rule?.when.sentiment ?? '',
    owner: notify.some((n) => n.role === 'owner'),
    manager: notify.some((n) => n.role === 'manager'),
    members: notify.flatMap((n) => (n.member ? [n.member] : [])),
    outside: notify.flatMap((n): Outside[] => (n.channel ? [{ channel: n.channel === 'sms' ? 'sms' : 'email', to: n.to ?? '' }] : [])),
  };
}
type Form = ReturnType<typeof formOf>;

/** A whole number typed, null for nothing, or undefined when what is typed is not one (said beside the field). */
function wholeNumber(text: string): number | null | undefined {
  const t = text.trim();
  if (t === '') return null;
  return /^\d{1,6}$/.test(t) ? Number(t) : undefined;
}

/**
 * What the API is sent, with where each recipient sits in `notify` (its errors come back as `notify[i]...`): the
 * roles, then the members kept from the rule, then the outside addresses, in the order shown.
 */
function inputOf(form: Form) {
  const keywords = form.keywords
    .split('\n')
    .map((k) => k.trim())
    .filter(Boolean);
  const roles = (['owner', 'manager'] as const).filter((r) => form[r]);
  const notify = [
    ...roles.map((role) => ({ role })),
    ...form.members.map((member) => ({ member })),
    ...form.outside.map((o) => ({ channel: o.channel, to: o.to })),
  ];
  return {
    keywords,
    memberAt: roles.length,
    outsideAt: roles.length + form.members.length,
    input: {
      name: form.name,
      enabled: form.enabled,
      severity: form.severity,
      escalateAfterMinutes: form.severity === 'urgent' ? (wholeNumber(form.escalate) ?? null) : null,
      when: {
        maxRating: wholeNumber(form.maxRating) ?? null,
        maxNps: wholeNumber(form.maxNps) ?? null,
        keywords: keywords.length ? keywords : null,
        themes: form.themes.length ? form.themes : null,
        sentiment: form.sentiment || null,
        locations: form.locations.length ? form.locations : null,
        surveys: form.surveys.length ? form.surveys : null,
      },
      notify,
    },
  };
}

/** The form of a new rule, or of `rule`. */
function RuleForm({ business, rule, names, onSaved }: { business: string; rule?: Rule; names: Names; onSaved: (name: string) => void }) {
  const [form, setForm] = useState(() => formOf(rule));
  const [sent, setSent] = useState(() => inputOf(form));
  const [typo, setTypo] = useState(false);
  const submit = useSubmit();
  const f = submit.fields;
  const set = <K extends keyof Form>(key: K, value: Form[K]) => setForm((old) => ({ ...old, [key]: value }));
  const title = rule ? `Edit ${rule.name}` : 'New alert rule';
  // A number field whose text is not a whole number is said so here, before anything is sent.
  const notWhole = (key: 'escalate' | 'maxRating' | 'maxNps') => (typo && wholeNumber(form[key]) === undefined ? 'must be a whole number' : undefined);
  const errorOf = (key: 'escalate' | 'maxRating' | 'maxNps', api: string) => notWhole(key) ?? f[api];
  // Every refusal of one kind, said together beside its control (a keyword's refusal names the keyword).
  const under = (prefix: string) => Object.entries(f).filter(([k]) => k === prefix || k.startsWith(`${prefix}[`) || k.startsWith(`${prefix}.`));
  const keywordErrors = under('when.keywords').map(([k, m]) => {
    const i = /\[(\d+)\]/.exec(k)?.[1];
    return i === undefined ? m : `“${sent.keywords[Number(i)]}” ${m}`;
  });
  const listError = (prefix: string) =>
    under(prefix)
      .map(([, m]) => m)
      .join('; ') || undefined;
  const recipientError = (i: number) => listError(`notify[${i}]`);
  const number = (key: 'escalate' | 'maxRating' | 'maxNps', api: string, label: string, hint: string) => (
    <Field label={label} error={errorOf(key, api)} hint={hint}>
      {(id, d) => (
        <input
          id={id}
          inputMode="numeric"
          aria-describedby={d}
          aria-invalid={!!errorOf(key, api)}
          value={form[key]}
          onInput={(e) => set(key, e.currentTarget.value)}
        />
      )}
    </Field>
  );
  const choices = (key: 'locations' | 'surveys', legend: string, every: string, list: { id: string; name: string }[]) => {
    const error = listError(`when.${key}`);
    const gone = form[key].filter((id) => !list.some((x) => x.id === id)).map((id) => ({ id, name: `No longer listed (${id})` }));
    return (
      <fieldset aria-describedby={error ? `${key}-${rule?.id ?? 'new'}-error` : undefined}>
        <legend>{legend}</legend>
        {list.length + gone.length ? <p class="muted">{every}</p> : <p class="muted">None yet: the rule counts every one.</p>}
        {[...list, ...gone].map((x) => (
          <label class="check" key={x.id}>
            <input
              type="checkbox"
              checked={form[key].includes(x.id)}
              onChange={(e) => set(key, e.currentTarget.checked ? [...form[key], x.id] : form[key].filter((id) => id !== x.id))}
            />{' '}
            {x.name}
          </label>
        ))}
        {error && (
          <span id={`${key}-${rule?.id ?? 'new'}-error`} class="field-error">
            {error}
          </span>
        )}
      </fieldset>
    );
  };
  const setOutside = (i: number, change: Partial<Outside>) =>
    set(
      'outside',
      form.outside.map((o, j) => (j === i ? { ...o, ...change } : o)),
    );
  const conditionError = f.when;
  // A theme's refusal names the theme ("'parkng' is not a theme of this business").
  const themeError = listError('when.themes');
  const whoError = f.notify;
  const idOf = (what: string) => `${what}-${rule?.id ?? 'new'}-error`;
  return (
    <CardForm
      label={title}
      onSubmit={async () => {
        const numbers = (['escalate', 'maxRating', 'maxNps'] as const).filter((k) => k !== 'escalate' || form.severity === 'urgent');
        const bad = numbers.some((k) => wholeNumber(form[k]) === undefined);
        setTypo(bad);
        if (bad) {
          submit.clear();
          return;
        }
        const next = inputOf(form);
        setSent(next);
        const input = next.input;
        const saved = rule
          ? (await submit.run(() => request(UpdateAlertRule, { business, id: rule.id, input })))?.updateAlertRule
          : (await submit.run(() => request(CreateAlertRule, { business, input })))?.createAlertRule;
        if (!saved) return;
        if (!rule) setForm(formOf());
        onSaved(saved.name);
      }}
    >
      {!rule && <h2>New alert rule</h2>}
      <Field label="Name" error={f.name} hint="For you and your team: “Unhappy diners”, “Food safety”. Guests never see it.">
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!f.name} value={form.name} onInput={(e) => set('name', e.currentTarget.value)} />}
      </Field>
      <label class="check">
        <input type="checkbox" checked={form.enabled} onChange={(e) => set('enabled', e.currentTarget.checked)} /> On: matching answers open cases and notify
      </label>
      <div class="row">
        <Field label="Severity" error={f.severity} hint="Urgent cases come first in the Inbox, and can call in the owners.">
          {(id, d) => (
            <select id={id} aria-describedby={d} aria-invalid={!!f.severity} value={form.severity} onChange={(e) => set('severity', e.currentTarget.value)}>
              <option value="normal">Normal</option>
              <option value="urgent">Urgent</option>
            </select>
          )}
        </Field>
        {form.severity === 'urgent' &&
          number(
            'escalate',
            'escalateAfterMinutes',
            'Tell the owners after (minutes, optional)',
            'If the case is still open and nobody took it: 1 to 10,080 (a week). Empty: never.',
          )}
      </div>
      <fieldset aria-describedby={conditionError ? idOf('when') : undefined}>
        <legend>When (any one of these)</legend>
        <div class="row">
          {number('maxRating', 'when.maxRating', 'A rating of at most', 'On each metric’s own scale: 2 catches 1 and 2 of 5 stars.')}
          {number('maxNps', 'when.maxNps', 'An NPS answer of at most', '0 to 10: 6 or less is a detractor.')}
        </div>
        <Field
          label="Or a text answer with any of these words, one per line"
          error={keywordErrors.join('; ') || undefined}
          hint="Whole words, in any case, with or without accents: “cold”, “rude”, “food poisoning”. At most 50."
        >
          {(id, d) => (
            <textarea
              id={id}
              rows={4}
              aria-describedby={d}
              aria-invalid={!!keywordErrors.length}
              value={form.keywords}
              onInput={(e) => set('keywords', e.currentTarget.value)}
            />
          )}
        </Field>
        <fieldset aria-describedby={themeError ? idOf('themes') : undefined}>
          <legend>Or a text answer read as speaking of these themes</legend>
          <p class="muted">
            Read by the service in English, Urdu and Roman Urdu (see <a href="/portal/themes">Themes</a>). None ticked with a sentiment chosen: a text answer
            read so as a whole.
          </p>
          <div class="theme-choices">
            {[...names.themes, ...form.themes.filter((t) => !names.themes.includes(t))].map((t) => (
              <label class="check" key={t}>
                <input
                  type="checkbox"
                  checked={form.themes.includes(t)}
                  onChange={(e) => set('themes', e.currentTarget.checked ? [...form.themes, t] : form.themes.filter((x) => x !== t))}
                />{' '}
                {t}
              </label>
            ))}
          </div>
          <Field label="Read as" error={f['when.sentiment']} hint="Negative: a guest who complained of one of the themes ticked.">
            {(id, d) => (
              <select
                id={id}
                aria-describedby={d}
                aria-invalid={!!f['when.sentiment']}
                value={form.sentiment}
                onChange={(e) => set('sentiment', e.currentTarget.value)}
              >
                <option value="">Any sentiment</option>
                <Options of={SENTIMENT_LABELS} />
              </select>
            )}
          </Field>
          {themeError && (
            <span id={idOf('themes')} class="field-error">
              {themeError}
            </span>
          )}
        </fieldset>
        {conditionError && (
          <span id={idOf('when')} class="field-error">
            {conditionError === 'give at least one of maxRating, maxNps, keywords, themes and sentiment'
              ? 'give at least one: a rating, an NPS answer, a word or a theme'
              : conditionError}
          </span>
        )}
      </fieldset>
      {choices('locations', 'Only at these locations', 'None ticked: every location.', names.locations)}
      {choices('surveys', 'Only for these surveys', 'None ticked: every survey.', names.surveys)}
      <fieldset aria-describedby={whoError ? idOf('notify') : undefined}>
        <legend>Who is told</legend>
        <label class="check">
          <input type="checkbox" checked={form.owner} onChange={(e) => set('owner', e.currentTarget.checked)} /> Every owner, at their account’s e-mail
        </label>
        <label class="check">
          <input type="checkbox" checked={form.manager} onChange={(e) => set('manager', e.currentTarget.checked)} /> Every manager, at their account’s e-mail
        </label>
        {form.members.map((m, i) => {
          const error = recipientError(sent.memberAt + i);
          return (
            <div class="row pair" key={`m-${m}`}>
              <p>
                {names.members.get(m) ?? 'A member'}, at their account’s e-mail{error && <span class="field-error">: {error}</span>}
              </p>
              <button
                type="button"
                class="secondary"
                aria-label={`Remove ${names.members.get(m) ?? 'the member'}`}
                onClick={() =>
                  set(
                    'members',
                    form.members.filter((x) => x !== m),
                  )
                }
              >
                Remove
              </button>
            </div>
          );
        })}
        {form.outside.map((o, i) => {
          const error = recipientError(sent.outsideAt + i);
          const n = i + 1;
          return (
            <div class="row pair" key={i}>
              <Field label={`Recipient ${n} is told by`}>
                {(id, d) => (
                  <select
                    id={id}
                    aria-describedby={d}
                    value={o.channel}
                    onChange={(e) => setOutside(i, { channel: e.currentTarget.value === 'sms' ? 'sms' : 'email' })}
                  >
                    <option value="email">E-mail</option>
                    <option value="sms">SMS</option>
                  </select>
                )}
              </Field>
              <Field
                label={o.channel === 'sms' ? `Recipient ${n}’s phone number` : `Recipient ${n}’s e-mail address`}
                error={error}
                hint={o.channel === 'sms' ? 'With the country code: +923001234567.' : undefined}
              >
                {(id, d) => (
                  <input
                    id={id}
                    inputMode={o.channel === 'sms' ? 'tel' : 'email'}
                    autoComplete="off"
                    aria-describedby={d}
                    aria-invalid={!!error}
                    value={o.to}
                    onInput={(e) => setOutside(i, { to: e.currentTarget.value })}
                  />
                )}
              </Field>
              <button
                type="button"
                class="secondary"
                aria-label={`Remove recipient ${n}`}
                onClick={() =>
                  set(
                    'outside',
                    form.outside.filter((_, j) => j !== i),
                  )
                }
              >
                Remove
              </button>
            </div>
          );
        })}
        <p class="muted">
          Someone outside the business (a chef, an area manager) is sent one message asking them to confirm, and told nothing else until they agree.
        </p>
        <button type="button" class="secondary" onClick={() => set('outside', [...form.outside, { channel: 'email', to: '' }])}>
          Add an e-mail address or phone number
        </button>
        {whoError && (
          <p id={idOf('notify')} class="field-error">
            {whoError === 'give at least one recipient' ? 'choose at least one person to tell' : whoError}
          </p>
        )}
      </fieldset>
      {typo && (
        <p class="failure" role="alert">
          Please correct the highlighted fields.
        </p>
      )}
      <FormError error={submit.error} shown={Object.keys(f).filter((k) => /^(name|severity|escalateAfterMinutes|when|notify)([.[]|$)/.test(k))} />
      <SaveButton busy={submit.busy} label={rule ? 'Save rule' : 'Add alert rule'} />
    </CardForm>
  );
}
