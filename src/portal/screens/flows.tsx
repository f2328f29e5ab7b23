import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { may, ReadOnlyNote } from '../roles';
import { graphql, request, type ResultOf } from '../graphql';
import { navigate } from '../router';
import { Empty, Failure, Field, FormError, Loaded, Loading, SaveButton, formatCount, formatDate, useLoad, useSubmit, Table, CardForm, zoneKnown } from '../ui';

const FlowsList = graphql(`
  query FlowsList($business: ID!) {
    feedbackFlows(business: $business, pageSize: 100, orderBy: [{ field: priority, order: asc }]) {
      data { id name enabled priority trigger survey channels delayMinutes }
    }
    surveys(business: $business, pageSize: 100) { data { id name status } }
  }
`);
const FlowScreen = graphql(`
  query FlowScreen($business: ID!, $id: ID!, $existing: Boolean!) {
    feedbackFlow(business: $business, id: $id) @include(if: $existing) {
      id name enabled priority trigger conditions survey channels delayMinutes quietHours { from to timeZone } throttleDays reminderAfterHours expiresAfterHours templates
    }
    surveys(business: $business, pageSize: 100) { data { id name status } }
    feedbackChannels(business: $business)
    feedbackFlowDefaults(business: $business) { delayMinutes quietHours { from to } throttleDays expiresAfterHours }
  }
`);
const CreateFlow = graphql(`
  mutation CreateFlow($business: ID!, $input: CreateFeedbackFlowInput!) { createFeedbackFlow(business: $business, input: $input) { id } }
`);
const UpdateFlow = graphql(`
  mutation UpdateFlow($business: ID!, $id: ID!, $input: UpdateFeedbackFlowInput!) { updateFeedbackFlow(business: $business, id: $id, input: $input) { id quietHours { from to timeZone } } }
`);
const DeleteFlow = graphql(`
  mutation DeleteFlow($business: ID!, $id: ID!) { deleteFeedbackFlow(business: $business, id: $id) }
`);
const SimulateFlow = graphql(`
  mutation SimulateFlow($business: ID!, $id: ID!, $input: SimulateFeedbackFlowInput!) {
    simulateFeedbackFlow(business: $business, id: $id, input: $input) { matches reasons sendAt channel subject body suppression quietHoursTimeZone }
  }
`);

const ORDER_CHANNELS = ['WEBSITE', 'ANDROID', 'IOS', 'CALL-IN', 'QR', 'FOODPANDA', 'GOLOOTLO', 'OTHER'];

/** "As soon as the order arrives", "2 h after the order is accepted". */
function whenText(minutes: number, trigger: string): string {
  const event = trigger === 'order.accepted' ? 'the order is accepted' : 'the order arrives';
  if (minutes === 0) return `As soon as ${event}`;
  return `${minutes % 60 === 0 ? `${formatCount(minutes / 60)} h` : `${formatCount(minutes)} min`} after ${event}`;
}

/** The flows that turn orders into feedback requests, first match by priority. */
export default function Flows({ session }: ScreenProps) {
  const state = useLoad(() => request(FlowsList, { business: session.business }), session.business);
  const mayChange = may(session, 'flows:write');
  return (
    <>
      <h1 tabIndex={-1}>Feedback flows</h1>
      <p>
        When an order arrives, the first enabled flow that matches it (lowest priority number first) asks the guest for feedback by e-mail or SMS, at the time
        you choose, never twice within the throttle and never in quiet hours.
      </p>
      {mayChange ? (
        <p>
          <a class="button" href="/portal/flows/new">
            New flow
          </a>
        </p>
      ) : (
        <ReadOnlyNote scope="flows:write">create and change feedback flows. You can read them here.</ReadOnlyNote>
      )}
      <Loaded state={state} what="feedback flows">
        {(data) => {
          const surveyName = new Map(data.surveys.data.map((s) => [s.id, s.name]));
          return data.feedbackFlows.data.length ? (
            <Table caption="Feedback flows" columns={['Priority', 'Name', 'When', 'Survey', 'By', 'Status']}>
              {data.feedbackFlows.data.map((f) => (
                <tr key={f.id}>
                  <td>{f.priority}</td>
                  <td>
                    <a href={`/portal/flows/${f.id}`}>{f.name}</a>
                  </td>
                  <td>{whenText(f.delayMinutes, f.trigger)}</td>
                  <td>{surveyName.get(f.survey) ?? f.survey}</td>
                  <td>{f.channels.join(', then ')}</td>
                  <td>
                    <span class={`status ${f.enabled ? 'active' : ''}`}>{f.enabled ? 'enabled' : 'disabled'}</span>
                  </td>
                </tr>
              ))}
            </Table>
          ) : (
            <Empty>
              No flow yet: guests are only asked through the links and QR codes you share.{' '}
              {data.surveys.data.some((s) => s.status === 'active') ? (
                mayChange && <a href="/portal/flows/new">Create a flow</a>
              ) : (
                <>
                  First <a href="/portal/surveys">activate a survey</a> for the flow to send.
                </>
              )}
            </Empty>
          );
        }}
      </Loaded>
    </>
  );
}

type Flow = NonNullable<ResultOf<typeof FlowScreen>['feedbackFlow']>;

type Defaults = ResultOf<typeof FlowScreen>['feedbackFlowDefaults'];

/**
 * The form's own state: text as typed (numbers included), so nothing typed is lost on an error. A new flow starts from
 * the service's defaults (feedbackFlowDefaults), with only the channels this service has a sender for, and quiet hours
 * only when the business has a time zone (else they would be read in UTC: evening there may be lunch time here).
 */
function formOf(flow: Flow | null | undefined, firstSurvey: string, senders: string[], defaults: Defaults) {
  const en = (flow?.templates as Record<string, { subject?: string; body?: string }> | undefined)?.en;
  const c = (flow?.conditions ?? {}) as { channel?: string[]; location?: string[]; minTotal?: number; hasEmail?: boolean; hasPhone?: boolean };
  return {
    name: flow?.name ?? '',
    enabled: flow?.enabled ?? true,
    priority: String(flow?.priority ?? 0),
    trigger: flow?.trigger ?? 'order.created',
    survey: flow?.survey ?? firstSurvey,
    email: flow ? flow.channels.includes('email') : senders.includes('email') || !senders.includes('sms'),
    sms: flow ? flow.channels.includes('sms') : senders.includes('sms'),
    smsFirst: flow ? flow.channels[0] === 'sms' : false,
    delayMinutes: String(flow?.delayMinutes ?? defaults.delayMinutes),
    quiet: flow ? flow.quietHours != null : zoneKnown(),
    quietFrom: flow?.quietHours?.from ?? defaults.quietHours.from,
    quietTo: flow?.quietHours?.to ?? defaults.quietHours.to,
    throttleDays: String(flow?.throttleDays ?? defaults.throttleDays),
    reminderAfterHours: flow?.reminderAfterHours == null ? '' : String(flow.reminderAfterHours),
    expiresAfterHours: String(flow?.expiresAfterHours ?? defaults.expiresAfterHours),
    subject: en?.subject ?? '',
    body: en?.body ?? '',
    onlyChannels: c.channel ?? [],
    onlyLocations: (c.location ?? []).join(', '),
    minTotal: c.minTotal == null ? '' : String(c.minTotal),
    hasEmail: c.hasEmail ?? false,
    hasPhone: c.hasPhone ?? false,
  };
}
type Form = ReturnType<typeof formOf>;

/** What the API is sent: numbers as numbers (a non-number is left for the API to name), empty optional fields out. */
function inputOf(form: Form, flow: Flow | null | undefined) {
  const number = (text: string) => (text.trim() === '' ? null : Number.isFinite(Number(text)) ? Number(text) : (text as unknown as number));
  const channels = [form.email && 'email', form.sms && 'sms'].filter(Boolean) as string[];
  if (form.smsFirst) channels.reverse();
  const conditions: Record<string, unknown> = {};
  if (form.onlyChannels.length) conditions.channel = form.onlyChannels;
  const locations = form.onlyLocations
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (locations.length) conditions.location = locations;
  if (form.minTotal.trim() !== '') conditions.minTotal = number(form.minTotal);
  if (form.hasEmail) conditions.hasEmail = true;
  if (form.hasPhone) conditions.hasPhone = true;
  const templates = { ...((flow?.templates as Record<string, unknown> | undefined) ?? {}) };
  if (form.body.trim()) templates.en = { subject: form.subject, body: form.body };
  return {
    name: form.name,
    enabled: form.enabled,
    priority: number(form.priority) ?? 0,
    trigger: form.trigger,
    survey: form.survey,
    channels,
    delayMinutes: number(form.delayMinutes) ?? 0,
    // Quiet hours stay in the time zone of each order's location unless the flow already named one.
    quietHours: form.quiet ? { from: form.quietFrom, to: form.quietTo, ...(flow?.quietHours?.timeZone ? { timeZone: flow.quietHours.timeZone } : {}) } : null,
    throttleDays: number(form.throttleDays) ?? 0,
    reminderAfterHours: number(form.reminderAfterHours),
    expiresAfterHours: number(form.expiresAfterHours) ?? 168,
    conditions: Object.keys(conditions).length ? conditions : null,
    ...(Object.keys(templates).length ? { templates } : {}),
  };
}

export function FlowEditor({ session, params }: ScreenProps) {
  const business = session.business;
  const id = params[0];
  const existing = id !== 'new';
  const state = useLoad(() => request(FlowScreen, { business, id: existing ? id : 'ff_none', existing }), `${business}/${id}`);
  return (
    <>
      <p>
        <a href="/portal/flows">← Feedback flows</a>
      </p>
      <Loaded state={state} what="the flow">
        {(data) => {
          const active = data.surveys.data.filter((s) => s.status === 'active');
          if (!existing && !active.length) {
            return (
              <>
                <h1 tabIndex={-1}>New feedback flow</h1>
                <Empty>
                  A flow sends a survey's link: first <a href="/portal/surveys">activate a survey</a>.
                </Empty>
              </>
            );
          }
          // Keyed by the flow the data is of, not the address: right after "Create flow" the address names the new flow
          // while the data shown is still the new-flow screen's, and a form made then would start empty.
          const flow = data.feedbackFlow ?? undefined;
          if (existing && flow?.id !== id) return <Loading what="the flow" />;
          return (
            <FlowForm
              key={flow?.id ?? 'new'}
              business={business}
              flow={flow}
              surveys={data.surveys.data}
              senders={data.feedbackChannels}
              defaults={data.feedbackFlowDefaults}
              mayChange={may(session, 'flows:write')}
            />
          );
        }}
      </Loaded>
    </>
  );
}

function FlowForm({
  business,
  flow,
  surveys,
  senders,
  defaults,
  mayChange,
}: {
  business: string;
  flow: Flow | null | undefined;
  surveys: { id: string; name: string; status: string }[];
  senders: string[];
  defaults: Defaults;
  mayChange: boolean;
}) {
  const [form, setForm] = useState(() => formOf(flow, surveys.find((s) => s.status === 'active')?.id ?? surveys[0]?.id ?? '', senders, defaults));
  const [saved, setSaved] = useState(false);
  // The quiet hours as stored (the dry run runs the stored flow, not the form).
  const [storedQuiet, setStoredQuiet] = useState(flow?.quietHours ?? null);
  const [deleting, setDeleting] = useState(false);
  const save = useSubmit();
  const remove = useSubmit();
  const f = save.fields;
  const set = <K extends keyof Form>(key: K, value: Form[K]) => {
    setSaved(false);
    setForm((old) => ({ ...old, [key]: value }));
  };
  const text = (key: keyof Form, label: string, options: { hint?: string; type?: 'text' | 'time'; error?: string; inputMode?: 'numeric' | 'decimal' } = {}) => (
    <Field label={label} hint={options.hint} error={options.error ?? f[key]}>
      {(fid, d) => (
        <input
          id={fid}
          type={(options.type ?? 'text') as 'text'}
          inputMode={options.inputMode}
          aria-describedby={d}
          aria-invalid={!!(options.error ?? f[key])}
          value={form[key] as string}
          disabled={!mayChange}
          onInput={(e) => set(key, e.currentTarget.value as never)}
        />
      )}
    </Field>
  );
  const check = (key: keyof Form, label: string) => (
    <label class="check">
      <input type="checkbox" checked={form[key] as boolean} disabled={!mayChange} onChange={(e) => set(key, e.currentTarget.checked as never)} /> {label}
    </label>
  );
  const prefixed = (prefix: string) => Object.entries(f).find(([k]) => k === prefix || k.startsWith(`${prefix}.`) || k.startsWith(`${prefix}[`))?.[1];
  const shown = Object.keys(f);
  return (
    <>
      <h1 tabIndex={-1}>{flow ? flow.name : 'New feedback flow'}</h1>
      {!mayChange && <ReadOnlyNote scope="flows:write">change a feedback flow or try it on an order. You can read it here.</ReadOnlyNote>}
      <CardForm
        label="Flow settings"
        onSubmit={async () => {
          const input = inputOf(form, flow);
          const r = flow
            ? await save.run(() => request(UpdateFlow, { business, id: flow.id, input }))
            : await save.run(() => request(CreateFlow, { business, input }));
          if (r && 'createFeedbackFlow' in r) navigate(`/portal/flows/${r.createFeedbackFlow.id}`, { replace: true });
          else if (r) {
            setStoredQuiet(r.updateFeedbackFlow.quietHours ?? null);
            setSaved(true);
          }
        }}
      >
        <div class="row">
          {text('name', 'Name', { hint: 'Yours only: guests never see it.' })}
          {text('priority', 'Priority', { inputMode: 'numeric', hint: 'Lower first: the first enabled flow that matches an order wins.' })}
        </div>
        {check('enabled', 'Enabled')}
        <div class="row">
          <Field label="Survey" error={f.survey}>
            {(fid, d) => (
              <select id={fid} aria-describedby={d} value={form.survey} disabled={!mayChange} onChange={(e) => set('survey', e.currentTarget.value)}>
                {surveys.map((s) => (
                  <option key={s.id} value={s.id}>
                    {s.name}
                    {s.status === 'active' ? '' : ` (${s.status})`}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field label="Starts when" error={f.trigger}>
            {(fid, d) => (
              <select id={fid} aria-describedby={d} value={form.trigger} disabled={!mayChange} onChange={(e) => set('trigger', e.currentTarget.value)}>
                <option value="order.created">the order arrives</option>
                <option value="order.accepted">the order is accepted</option>
              </select>
            )}
          </Field>
          {text('delayMinutes', 'Send after (minutes)', {
            inputMode: 'numeric',
            hint: 'About an hour suits most meals: the guest has eaten, a delivery has arrived. 0 sends at once.',
          })}
        </div>
        <fieldset>
          <legend>Channels</legend>
          {check('email', senders.includes('email') ? 'E-mail' : 'E-mail (no e-mail sender is configured on this service yet)')}
          {check('sms', senders.includes('sms') ? 'SMS' : 'SMS (no SMS sender is configured on this service yet)')}
          {form.email && form.sms && check('smsFirst', 'Try SMS first (else e-mail first)')}
          {prefixed('channels') && <span class="field-error">{prefixed('channels')}</span>}
        </fieldset>
        <fieldset>
          <legend>Timing</legend>
          {check('quiet', 'Wait out quiet hours (in the time zone of the order’s location, else the business’s)')}
          {form.quiet && !zoneKnown() && <p class="muted">Your business has no time zone: quiet hours apply only to orders of locations that have one.</p>}
          {form.quiet && (
            <div class="row">
              {text('quietFrom', 'Quiet from', { type: 'time', error: prefixed('quietHours') })}
              {text('quietTo', 'Quiet until', { type: 'time' })}
            </div>
          )}
          <div class="row">
            {text('throttleDays', 'At most one request per guest in (days)', { inputMode: 'numeric', hint: '0: no limit.' })}
            {text('reminderAfterHours', 'Remind after (hours)', { inputMode: 'numeric', hint: 'Empty: no reminder.' })}
            {text('expiresAfterHours', 'The link expires after (hours)', { inputMode: 'numeric' })}
          </div>
        </fieldset>
        <fieldset>
          <legend>Only these orders (empty: every order)</legend>
          <div class="row">
            <Field label="Ordering channels" hint="Ctrl or ⌘ to pick several." error={prefixed('conditions.channel')}>
              {(fid, d) => (
                <select
                  id={fid}
                  multiple
                  size={4}
                  aria-describedby={d}
                  disabled={!mayChange}
                  onChange={(e) =>
                    set(
                      'onlyChannels',
                      [...e.currentTarget.selectedOptions].map((o) => o.value),
                    )
                  }
                >
                  {ORDER_CHANNELS.map((c) => (
                    <option key={c} value={c} selected={form.onlyChannels.includes(c)}>
                      {c}
                    </option>
                  ))}
                </select>
              )}
            </Field>
            {text('onlyLocations', 'Location ids (externalLocationId), comma separated', { error: prefixed('conditions.location') })}
            {text('minTotal', 'Minimum total', { inputMode: 'decimal', error: prefixed('conditions.minTotal') })}
          </div>
          {check('hasEmail', 'The guest gave an e-mail address')}
          {check('hasPhone', 'The guest gave a phone number')}
        </fieldset>
        <fieldset>
          <legend>Message (English)</legend>
          {text('subject', 'E-mail subject', { hint: 'Empty subject and body: the standard message.' })}
          <Field label="Body" hint="Must contain {{link}}; may use {{name}} and {{orderId}}." error={prefixed('templates')}>
            {(fid, d) => (
              <textarea
                id={fid}
                aria-describedby={d}
                aria-invalid={!!prefixed('templates')}
                value={form.body}
                disabled={!mayChange}
                onInput={(e) => set('body', e.currentTarget.value)}
              />
            )}
          </Field>
        </fieldset>
        <FormError error={save.error} shown={shown} />
        {mayChange && (
          <div class="actions">
            <SaveButton busy={save.busy} label={flow ? 'Save flow' : 'Create flow'} />
            {saved && (
              <span class="ok" role="status">
                Saved.
              </span>
            )}
          </div>
        )}
      </CardForm>
      {flow && mayChange && <DryRun business={business} flow={flow.id} quietHours={storedQuiet} />}
      {flow && mayChange && (
        <section class="card" aria-labelledby="delete-flow">
          <h2 id="delete-flow">Delete</h2>
          {deleting ? (
            <div class="confirm" role="alertdialog" aria-labelledby="delete-flow-q">
              <p id="delete-flow-q">Delete {flow.name}? New orders stop matching it; requests it already scheduled are cancelled.</p>
              <button
                type="button"
                class="danger"
                disabled={remove.busy}
                onClick={async () => {
                  if (await remove.run(() => request(DeleteFlow, { business, id: flow.id }))) navigate('/portal/flows');
                }}
              >
                Delete it
              </button>{' '}
              <button type="button" class="secondary" onClick={() => setDeleting(false)}>
                Cancel
              </button>
            </div>
          ) : (
            <button type="button" class="danger" onClick={() => setDeleting(true)}>
              Delete this flow…
            </button>
          )}
          {remove.error ? <Failure error={remove.error} /> : null}
        </section>
      )}
    </>
  );
}

/** The dry run: an order (its id, or a few fields typed here) and what the flow would do with it now. */
function DryRun({ business, flow, quietHours }: { business: string; flow: string; quietHours: Flow['quietHours'] }) {
  const [order, setOrder] = useState({ id: '', total: '25', currency: 'USD', email: 'guest@example.com', phone: '', location: '', channel: 'WEBSITE' });
  const run = useSubmit();
  const [result, setResult] = useState<ResultOf<typeof SimulateFlow>['simulateFeedbackFlow']>();
  const f = run.fields;
  const field = (key: keyof typeof order, label: string, name: string) => (
    <Field label={label} error={f[`order.${name}`]}>
      {(fid, d) => (
        <input
          id={fid}
          aria-describedby={d}
          aria-invalid={!!f[`order.${name}`]}
          value={order[key]}
          onInput={(e) => setOrder({ ...order, [key]: e.currentTarget.value })}
        />
      )}
    </Field>
  );
  return (
    <section class="card" aria-labelledby="dry-run">
      <h2 id="dry-run">Dry run</h2>
      <p class="muted">What this flow would do with an order, now: nothing is stored or sent.</p>
      <form
        aria-label="Dry run"
        onSubmit={async (e) => {
          e.preventDefault();
          const given = order.id.trim()
            ? order.id.trim()
            : {
                externalOrderId: 'dry-run',
                total: order.total,
                currency: order.currency,
                channel: order.channel,
                ...(order.email ? { customerEmail: order.email } : {}),
                ...(order.phone ? { customerPhoneNumber: order.phone } : {}),
                ...(order.location ? { externalLocationId: order.location } : {}),
              };
          const r = await run.run(() => request(SimulateFlow, { business, id: flow, input: { order: given } }));
          setResult(r?.simulateFeedbackFlow);
        }}
      >
        {field('id', 'An order id (ord_…), or leave empty and describe one', 'id')}
        {!order.id.trim() && (
          <div class="row">
            {field('total', 'Total', 'total')}
            {field('currency', 'Currency', 'currency')}
            {field('channel', 'Ordering channel', 'channel')}
            {field('email', 'Guest e-mail', 'customerEmail')}
            {field('phone', 'Guest phone', 'customerPhoneNumber')}
            {field('location', 'Location id (externalLocationId)', 'externalLocationId')}
          </div>
        )}
        <FormError error={run.error} shown={Object.keys(f)} />
        <button type="submit" disabled={run.busy}>
          {run.busy ? 'Trying…' : 'Try it'}
        </button>
      </form>
      {result && (
        <div role="status" data-testid="dry-run-result">
          {result.matches ? (
            result.suppression ? (
              <p>
                <strong>It matches, but would not send:</strong> {result.suppression.replace(/_/g, ' ')}.
              </p>
            ) : (
              <p>
                <strong>It would send</strong> by {result.channel} at {formatDate(result.sendAt)}.
              </p>
            )
          ) : (
            <p>
              <strong>It does not match:</strong> {result.reasons.join('; ')}.
            </p>
          )}
          {result.matches && quietHours && (
            <p data-testid="dry-run-quiet">
              {result.quietHoursTimeZone
                ? `Quiet hours ${quietHours.from}–${quietHours.to} are read in ${result.quietHoursTimeZone}.`
                : `Quiet hours ${quietHours.from}–${quietHours.to} do not apply: neither this order’s location nor the business has a time zone.`}
            </p>
          )}
          {result.matches && (
            <>
              {result.subject && <p>Subject: {result.subject}</p>}
              <pre>{result.body}</pre>
            </>
          )}
        </div>
      )}
    </section>
  );
}
