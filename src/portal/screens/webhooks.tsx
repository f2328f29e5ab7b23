import { useEffect, useRef, useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { graphql, request, type ResultOf } from '../graphql';
import { navigate } from '../router';
import {
  CardForm,
  DateInput,
  Empty,
  Failure,
  Field,
  FormError,
  Loaded,
  SaveButton,
  SecretOnce,
  Table,
  formatDate,
  plural,
  useLoad,
  useSubmit,
  zoneName,
  zonedTime,
} from '../ui';
import { Pager } from '../lists';
import { useLiveEvents } from '../live';

const WebhooksList = graphql(`
  query WebhooksList($business: ID!) {
    webhooks(business: $business, pageSize: 100) { data { id url events enabled description createdAt } }
  }
`);
const WebhookScreen = graphql(`
  query WebhookScreen($business: ID!, $id: ID!, $page: Int!) {
    webhook(business: $business, id: $id) { id url events enabled description createdAt }
    webhookDeliveries(business: $business, webhook: $id, page: $page, pageSize: 20) {
      total page hasMore
      data { id eventType status attemptCount nextAttemptAt createdAt attempts { at durationMs responseStatus error responseBody } }
    }
  }
`);
const CreateWebhook = graphql(`
  mutation CreateWebhook($business: ID!, $input: CreateWebhookInput!) { createWebhook(business: $business, input: $input) { id secret } }
`);
const UpdateWebhook = graphql(`
  mutation UpdateWebhook($business: ID!, $id: ID!, $input: UpdateWebhookInput!) { updateWebhook(business: $business, id: $id, input: $input) { id } }
`);
const RotateSecret = graphql(`
  mutation RotateWebhookSecret($business: ID!, $id: ID!) { rotateWebhookSecret(business: $business, id: $id) { id secret } }
`);
const TestWebhook = graphql(`
  mutation TestWebhook($business: ID!, $id: ID!) { testWebhook(business: $business, id: $id) { id } }
`);
const Redeliver = graphql(`
  mutation RedeliverDelivery($business: ID!, $webhook: ID!, $id: ID!) { redeliverWebhookDelivery(business: $business, webhook: $webhook, id: $id) { id status } }
`);
const Recover = graphql(`
  mutation RecoverWebhook($business: ID!, $id: ID!, $input: RecoverWebhookInput!) { recoverWebhook(business: $business, id: $id, input: $input) { redelivered } }
`);
const DeleteWebhook = graphql(`
  mutation DeleteWebhook($business: ID!, $id: ID!) { deleteWebhook(business: $business, id: $id) }
`);

/**
 * When to read the delivery log again by itself, or undefined: a delivery's attempt is not an event (it would be
 * delivered in turn), so the log follows the workers by reading again while a delivery is under way: soon after an
 * attempt falls due (1 s apart while one is due now, slower the longer it stays so: a stopped worker is not polled
 * hard), and at the next retry's time.
 */
function nextLogRead(deliveries: { status: string; nextAttemptAt?: number | null }[], now: number, reads: number): number | undefined {
  const due = deliveries.filter((d) => d.nextAttemptAt != null || d.status === 'pending').map((d) => d.nextAttemptAt ?? now);
  if (!due.length) return undefined;
  const soonest = Math.min(...due);
  if (soonest > now + 15 * 60_000) return undefined; // a retry hours away: the Refresh button, or the next visit
  const wait = reads < 10 ? 1_000 : reads < 20 ? 5_000 : 30_000;
  return Math.max(soonest + 1_000 - now, wait);
}

const splitEvents = (text: string) =>
  text
    .split(/[\s,]+/)
    .map((e) => e.trim())
    .filter(Boolean);

/** Webhooks: each endpoint with its events; a new one's signing secret is shown once. */
export default function Webhooks({ session }: ScreenProps) {
  const state = useLoad(() => request(WebhooksList, { business: session.business }), session.business);
  const [created, setCreated] = useState<{ id: string; secret: string }>();
  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p>Every event of your business (orders, feedback, changes) posted to your endpoints, signed (Standard Webhooks) and retried for about 3 days.</p>
      <Loaded state={state} what="webhooks">
        {(data) =>
          data.webhooks.data.length ? (
            <Table caption="Webhooks" columns={['Endpoint', 'Events', 'State', 'Created']}>
              {data.webhooks.data.map((w) => (
                <tr key={w.id}>
                  <td>
                    <a class="url" href={`/portal/webhooks/${w.id}`}>
                      {w.url}
                    </a>
                    {w.description ? <div class="muted">{w.description}</div> : null}
                  </td>
                  <td>{w.events.join(', ')}</td>
                  <td>{w.enabled ? 'enabled' : 'disabled'}</td>
                  <td>{formatDate(w.createdAt)}</td>
                </tr>
              ))}
            </Table>
          ) : (
            <Empty>No webhook yet: add your endpoint below to receive events as they happen.</Empty>
          )
        }
      </Loaded>
      {created && (
        <>
          <SecretOnce label="Signing secret" value={created.secret} />
          <p>
            <a href={`/portal/webhooks/${created.id}`}>Open the webhook and its delivery log</a>
          </p>
        </>
      )}
      <WebhookForm
        business={session.business}
        onSaved={(w) => {
          setCreated(w);
          state.reload();
        }}
      />
    </>
  );
}

type Hook = ResultOf<typeof WebhookScreen>['webhook'];

function WebhookForm({ business, webhook, onSaved }: { business: string; webhook?: Hook; onSaved: (created: { id: string; secret: string }) => void }) {
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [events, setEvents] = useState(webhook?.events.join(', ') ?? '*');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [saved, setSaved] = useState(false);
  const submit = useSubmit();
  const f = submit.fields;
  const eventsError = f.events ?? Object.entries(f).find(([k]) => k.startsWith('events['))?.[1];
  return (
    <CardForm
      label={webhook ? 'Edit the webhook' : 'New webhook'}
      onSubmit={async () => {
        setSaved(false);
        const input = { url, events: splitEvents(events), description: description || null };
        if (webhook) {
          if (await submit.run(() => request(UpdateWebhook, { business, id: webhook.id, input }))) {
            setSaved(true);
            onSaved({ id: webhook.id, secret: '' });
          }
        } else {
          const r = await submit.run(() => request(CreateWebhook, { business, input }));
          if (r) {
            setUrl('');
            setDescription('');
            onSaved({ id: r.createWebhook.id, secret: r.createWebhook.secret ?? '' });
          }
        }
      }}
    >
      {!webhook && <h2>New webhook</h2>}
      <Field label="Endpoint address" error={f.url} hint="https://… where your server receives the events.">
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!f.url} type="url" value={url} onInput={(e) => setUrl(e.currentTarget.value)} />}
      </Field>
      <Field label="Events" error={eventsError} hint="Event types separated by commas (order.created, submission.created…), or * for all.">
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!eventsError} value={events} onInput={(e) => setEvents(e.currentTarget.value)} />}
      </Field>
      <Field label="Description (optional)" error={f.description}>
        {(id, d) => <input id={id} aria-describedby={d} value={description} onInput={(e) => setDescription(e.currentTarget.value)} />}
      </Field>
      <FormError error={submit.error} shown={['url', 'events', 'description', ...Object.keys(f).filter((k) => k.startsWith('events['))]} />
      <SaveButton busy={submit.busy} label={webhook ? 'Save' : 'Add webhook'} saved={saved} />
    </CardForm>
  );
}

/** One webhook: edit, rotate, test, enable, delete; its delivery log with every attempt, redeliver, recover a range. */
export function WebhookDetail({ session, params, query }: ScreenProps) {
  const id = params[0];
  const business = session.business;
  const page = Number(query.get('page') ?? 0) || 0;
  const state = useLoad(() => request(WebhookScreen, { business, id, page }), `${business}/${id}/${page}`);
  // New deliveries: the events this webhook receives, heard live; their attempts: read again while under way.
  const hooked = state.data?.webhook.events;
  useLiveEvents(business, [], state.reload, (type) => !!hooked && (hooked.includes('*') ? type !== 'webhook.test' : hooked.includes(type)));
  const reads = useRef({ shown: '', count: 0 });
  useEffect(() => {
    const deliveries = state.data?.webhookDeliveries.data;
    if (!deliveries || state.loading) return;
    const shown = deliveries.map((d) => `${d.id}:${d.status}:${d.attemptCount}`).join();
    reads.current = shown === reads.current.shown ? { shown, count: reads.current.count + 1 } : { shown, count: 0 };
    const wait = nextLogRead(deliveries, Date.now(), reads.current.count);
    if (wait === undefined) return;
    const timer = setTimeout(state.reload, wait);
    return () => clearTimeout(timer);
  }, [state.data, state.loading]);
  const [secret, setSecret] = useState<string>();
  const [sinceDay, setSinceDay] = useState('');
  const [sinceTime, setSinceTime] = useState('00:00');
  const [recovered, setRecovered] = useState<number>();
  const [confirmDelete, setConfirmDelete] = useState(false);
  const act = useSubmit();
  const recover = useSubmit();
  const run = async (action: () => Promise<unknown>) => {
    if (await act.run(action)) state.reload();
  };
  return (
    <>
      <p>
        <a href="/portal/webhooks">← Webhooks</a>
      </p>
      <Loaded state={state} what="the webhook">
        {(data) => {
          const w = data.webhook;
          return (
            <>
              <h1 tabIndex={-1}>Webhook to {new URL(w.url).host}</h1>
              {!w.enabled && (
                <div class="failure" role="status">
                  <p>This webhook is disabled: no events are sent to it.</p>
                  <button type="button" onClick={() => run(() => request(UpdateWebhook, { business, id, input: { enabled: true } }))}>
                    Re-enable
                  </button>
                </div>
              )}
              <WebhookForm key={w.url + w.events.join()} business={business} webhook={w} onSaved={() => state.reload()} />
              {secret && <SecretOnce label="New signing secret" value={secret} />}
              <div class="actions">
                <button type="button" class="secondary" disabled={act.busy} onClick={() => run(() => request(TestWebhook, { business, id }))}>
                  Send a test event
                </button>
                <button
                  type="button"
                  class="secondary"
                  disabled={act.busy}
                  onClick={() => run(async () => setSecret((await request(RotateSecret, { business, id })).rotateWebhookSecret.secret ?? undefined))}
                >
                  Rotate the secret
                </button>
                {w.enabled && (
                  <button
                    type="button"
                    class="secondary"
                    disabled={act.busy}
                    onClick={() => run(() => request(UpdateWebhook, { business, id, input: { enabled: false } }))}
                  >
                    Disable
                  </button>
                )}
                <button type="button" class="danger" onClick={() => setConfirmDelete(true)}>
                  Delete…
                </button>
              </div>
              <p class="muted">After a rotation the old secret keeps signing too for 24 hours, so your receiver can switch without losing events.</p>
              {confirmDelete && (
                <div class="confirm" role="alertdialog" aria-labelledby="delete-q">
                  <p id="delete-q">Delete this webhook? No more events are sent to {w.url}, and its delivery log goes with it.</p>
                  <button
                    type="button"
                    class="danger"
                    onClick={async () => (await act.run(() => request(DeleteWebhook, { business, id }))) && navigate('/portal/webhooks')}
                  >
                    Delete
                  </button>{' '}
                  <button type="button" class="secondary" onClick={() => setConfirmDelete(false)}>
                    Cancel
                  </button>
                </div>
              )}
              {act.error ? <Failure error={act.error} /> : null}
              <h2>Deliveries</h2>
              <p>
                <button type="button" class="secondary" onClick={state.reload}>
                  Refresh the log
                </button>
              </p>
              {data.webhookDeliveries.data.length ? (
                <>
                  <ul class="deliveries">
                    {data.webhookDeliveries.data.map((d) => (
                      <li key={d.id} class="card">
                        <div class="step-head">
                          <span>
                            <strong>{d.eventType}</strong> · <span class={`status ${d.status}`}>{d.status}</span> · {formatDate(d.createdAt)} ·{' '}
                            {plural(d.attemptCount, 'attempt')}
                            {d.nextAttemptAt ? ` · next ${formatDate(d.nextAttemptAt)}` : ''}
                          </span>
                          <button
                            type="button"
                            class="secondary"
                            disabled={act.busy}
                            onClick={() => run(() => request(Redeliver, { business, webhook: id, id: d.id }))}
                          >
                            Redeliver
                          </button>
                        </div>
                        {d.attempts.length > 0 && (
                          <details>
                            <summary>Attempts</summary>
                            <Table caption={`Attempts of ${d.eventType}`} columns={['Time', 'Duration', 'Status', 'Answer']}>
                              {d.attempts.map((a) => (
                                <tr key={a.at}>
                                  <td>{formatDate(a.at)}</td>
                                  <td>{a.durationMs} ms</td>
                                  <td>{a.responseStatus ?? a.error}</td>
                                  <td>
                                    <code>{(a.responseBody ?? '').slice(0, 200)}</code>
                                  </td>
                                </tr>
                              ))}
                            </Table>
                          </details>
                        )}
                      </li>
                    ))}
                  </ul>
                  <Pager list={data.webhookDeliveries} query={query} />
                </>
              ) : (
                <Empty>No delivery yet. Send a test event to see one.</Empty>
              )}
              <CardForm
                label="Recover failed deliveries"
                onSubmit={async () => {
                  const r = await recover.run(() => request(Recover, { business, id, input: { since: zonedTime(`${sinceDay}T${sinceTime || '00:00'}`) } }));
                  if (r) {
                    setRecovered(r.recoverWebhook.redelivered);
                    state.reload();
                  }
                }}
              >
                <h3>Recover</h3>
                <p class="muted">Send again every failed delivery since this day and time ({zoneName()}).</p>
                <div class="row">
                  <Field label={`Since the day (${zoneName()})`} error={recover.fields.since}>
                    {(fid, d) => <DateInput id={fid} describedBy={d} value={sinceDay} onChange={setSinceDay} />}
                  </Field>
                  <Field label="At (hh:mm)">
                    {(fid, d) => (
                      <input
                        id={fid}
                        aria-describedby={d}
                        type="text"
                        inputMode="numeric"
                        pattern="[0-2][0-9]:[0-5][0-9]"
                        value={sinceTime}
                        onInput={(e) => setSinceTime(e.currentTarget.value)}
                      />
                    )}
                  </Field>
                </div>
                <FormError error={recover.error} shown={['since']} />
                <button type="submit" disabled={recover.busy || !sinceDay}>
                  Recover
                </button>
                {recovered !== undefined && <span role="status"> {plural(recovered, 'delivery', 'deliveries')} sent again.</span>}
              </CardForm>
            </>
          );
        }}
      </Loaded>
    </>
  );
}
