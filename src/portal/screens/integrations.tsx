import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { graphql, request } from '../graphql';
import { may, ReadOnlyNote } from '../roles';
import { CopyText, Empty, FormError, Loaded, SecretOnce, formatDate, formatMoney, useLoad, useSubmit } from '../ui';

const IntegrationsScreen = graphql(`
  query IntegrationsScreen($business: ID!) {
    customIntegration(business: $business) { webhookPath connectedAt rotatedAt }
    orders(business: $business, pageSize: 5, where: { source: { eq: "custom" } }) { total data { id externalOrderId total currency createdAt } }
    latest: orders(business: $business, pageSize: 1) { data { currency } }
    menuItems(business: $business, pageSize: 2, orderBy: [{ field: createdAt, order: asc }]) { data { name itemId } }
  }
`);

const Connect = graphql(`
  mutation ConnectCustom($business: ID!) { connectCustomIntegration(business: $business) { secret webhookPath rotated } }
`);

/** What the sample order is made of: the business's own currency and dishes where it has any. */
interface Sample {
  currency: string;
  dishes: { name: string; itemId?: string | null }[];
}

/** A business with no order yet has neither: a sample that reads as a placeholder, not as another restaurant's. */
const PLACEHOLDER: Sample = { currency: 'USD', dishes: [{ name: 'House special', itemId: 'SKU-1' }] };

/** The ready-to-paste request an ordering system sends: the integrator's guide's first example, in the business's terms. */
function curlExample(endpoint: string, secret: string, sample: Sample) {
  const items = (sample.dishes.length ? sample.dishes : PLACEHOLDER.dishes).map((d, i) => ({
    name: d.name,
    itemId: d.itemId ?? `SKU-${i + 1}`,
    quantity: 1,
    unitPrice: 12,
  }));
  const body = JSON.stringify({
    externalOrderId: 'A-1001',
    externalLocationId: 'MAIN-01',
    total: items.length * 12,
    currency: sample.currency,
    payment: true,
    channel: 'WEBSITE',
    metadata: { orderType: 'dine-in' },
    items,
  });
  return `curl -s ${endpoint} -H 'authorization: Bearer ${secret}' -H 'content-type: application/json' \\\n  -d '${body}'`;
}

const sampleOf = (data: { latest: { data: { currency: string }[] }; menuItems: { data: Sample['dishes'] } }): Sample => ({
  currency: data.latest.data[0]?.currency ?? PLACEHOLDER.currency,
  dishes: data.menuItems.data,
});

/** The custom order webhook: connect (or rotate) it, its address, a curl example, the latest orders it brought. */
export default function Integrations({ session }: ScreenProps) {
  const state = useLoad(() => request(IntegrationsScreen, { business: session.business }), session.business);
  const [secret, setSecret] = useState<string>();
  const [confirmRotate, setConfirmRotate] = useState(false);
  const submit = useSubmit();
  const mayChange = may(session, 'orders:write');
  const connect = async () => {
    const r = await submit.run(() => request(Connect, { business: session.business }));
    if (r) {
      setSecret(r.connectCustomIntegration.secret);
      setConfirmRotate(false);
      state.reload();
    }
  };
  return (
    <>
      <h1 tabIndex={-1}>Integrations</h1>
      <h2>Custom order webhook</h2>
      <p>
        Your ordering system (POS, website, app) posts each order here; feedback links can then name the order, and orders show under{' '}
        <a href="/portal/orders">Orders</a>.
      </p>
      <Loaded state={state} what="the integration">
        {(data) => {
          const integration = data.customIntegration;
          const endpoint = integration ? `${location.origin}${integration.webhookPath}` : undefined;
          const curl = endpoint && curlExample(endpoint, secret ?? '<your webhook secret>', sampleOf(data));
          return (
            <>
              {integration ? (
                <>
                  <dl class="facts">
                    <dt>Endpoint</dt>
                    <dd>
                      <code data-testid="endpoint">{endpoint}</code> <CopyText value={endpoint!} label="the endpoint" />
                    </dd>
                    <dt>Connected</dt>
                    <dd>{formatDate(integration.connectedAt)}</dd>
                    <dt>Secret last rotated</dt>
                    <dd>{integration.rotatedAt ? formatDate(integration.rotatedAt) : 'never'}</dd>
                  </dl>
                  {secret && <SecretOnce label="Webhook secret" value={secret} />}
                  {!mayChange ? (
                    <ReadOnlyNote scope="orders:write">connect the webhook and rotate its secret.</ReadOnlyNote>
                  ) : !confirmRotate ? (
                    <button type="button" class="secondary" onClick={() => setConfirmRotate(true)}>
                      Rotate the secret
                    </button>
                  ) : (
                    <div class="confirm" role="alertdialog" aria-labelledby="rotate-q">
                      <p id="rotate-q">
                        The current secret stops working at once: orders your system sends with it are refused until you paste the new one there. Rotate now?
                      </p>
                      <button type="button" class="danger" disabled={submit.busy} onClick={connect}>
                        Rotate now
                      </button>{' '}
                      <button type="button" class="secondary" onClick={() => setConfirmRotate(false)}>
                        Cancel
                      </button>
                    </div>
                  )}
                  <h3>Try it</h3>
                  <p>
                    This request posts a test order (replace <code>A-1001</code> for each new order):
                  </p>
                  <pre data-testid="curl-example">{curl}</pre>
                  <CopyText value={curl!} label="the curl example" />
                </>
              ) : (
                <Empty>
                  <p>Not connected yet. Connecting gives you the endpoint and a secret your system sends with each order.</p>
                  {mayChange ? (
                    <button type="button" disabled={submit.busy} onClick={connect}>
                      {submit.busy ? 'Connecting…' : 'Connect'}
                    </button>
                  ) : (
                    <ReadOnlyNote scope="orders:write">connect it.</ReadOnlyNote>
                  )}
                </Empty>
              )}
              <FormError error={submit.error} />
              <h3>Latest orders received</h3>
              {data.orders.data.length ? (
                <ul>
                  {data.orders.data.map((o) => (
                    <li key={o.id}>
                      <a href={`/portal/orders/${o.id}`}>{o.externalOrderId}</a> · {formatMoney(o.total, o.currency)} · {formatDate(o.createdAt)}
                    </li>
                  ))}
                </ul>
              ) : (
                <p class="muted">None yet.</p>
              )}
            </>
          );
        }}
      </Loaded>
    </>
  );
}
