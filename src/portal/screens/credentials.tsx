import { useState } from 'preact/hooks';
import type { ScreenProps } from '../main';
import { graphql, request } from '../graphql';
import { Empty, Failure, Field, FormError, Loaded, SecretOnce, formatDate, useLoad, useSubmit, CardForm } from '../ui';

const CredentialsList = graphql(`
  query CredentialsList($business: ID!) {
    credentials(business: $business, pageSize: 100) { data { id name clientId validRedirectUris createdAt } }
  }
`);
const CreateCredential = graphql(`
  mutation CreateCredential($business: ID!, $input: CreateCredentialInput!) { createCredential(business: $business, input: $input) { id clientId clientSecret } }
`);
const DeleteCredential = graphql(`
  mutation DeleteCredential($business: ID!, $id: ID!) { deleteCredential(business: $business, id: $id) }
`);

/**
 * OAuth credentials of apps that use this business's data. The API has no update for a credential, so its redirect
 * addresses are set at creation (create a new one to change them).
 */
export default function Credentials({ session }: ScreenProps) {
  const business = session.business;
  const state = useLoad(() => request(CredentialsList, { business }), business);
  const [created, setCreated] = useState<{ clientId: string; clientSecret: string }>();
  const [deleting, setDeleting] = useState<string>();
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  const submit = useSubmit();
  const remove = useSubmit();
  const f = submit.fields;
  const uriError = f.validRedirectUris ?? Object.entries(f).find(([k]) => k.startsWith('validRedirectUris['))?.[1];
  return (
    <>
      <h1 tabIndex={-1}>API credentials</h1>
      <p>Each app that reads or changes this business's data through the API (a POS, a partner's dashboard) gets its own credential: a client id and a secret for OAuth 2.0.</p>
      <Loaded state={state} what="credentials">
        {(data) =>
          data.credentials.data.length ? (
            <ul class="credentials">
              {data.credentials.data.map((c) => (
                <li key={c.id} class="card">
                  <strong>{c.name}</strong> <span class="muted">created {formatDate(c.createdAt)}</span>
                  <div>Client id: <code>{c.clientId}</code></div>
                  <div>Redirect addresses: {c.validRedirectUris.join(', ')}</div>
                  {deleting === c.id ? (
                    <div class="confirm" role="alertdialog" aria-labelledby={`del-${c.id}`}>
                      <p id={`del-${c.id}`}>Delete {c.name}? Every token it was given stops working at once, and the app using client id {c.clientId} can no longer sign in or call the API.</p>
                      <button type="button" class="danger" disabled={remove.busy} onClick={async () => { if (await remove.run(() => request(DeleteCredential, { business, id: c.id }))) { setDeleting(undefined); state.reload(); } }}>Delete it</button>{' '}
                      <button type="button" class="secondary" onClick={() => setDeleting(undefined)}>Cancel</button>
                    </div>
                  ) : (
                    <button type="button" class="danger" aria-label={`Delete ${c.name}…`} onClick={() => setDeleting(c.id)}>Delete…</button>
                  )}
                </li>
              ))}
            </ul>
          ) : (
            <Empty>No credential yet. Create one below for each app that should call the API.</Empty>
          )
        }
      </Loaded>
      {remove.error ? <Failure error={remove.error} /> : null}
      {created && (
        <>
          <p>Client id: <code data-testid="client-id">{created.clientId}</code></p>
          <SecretOnce label="Client secret" value={created.clientSecret} />
        </>
      )}
      <CardForm
        label="New credential"
        onSubmit={async () => {
          const r = await submit.run(() => request(CreateCredential, { business, input: { name, validRedirectUris: uris.split(/\s+/).filter(Boolean) } }));
          if (r) {
            setCreated(r.createCredential);
            setName('');
            setUris('');
            state.reload();
          }
        }}
      >
        <h2>New credential</h2>
        <Field label="Name" error={f.name} hint="The app's name, as your staff know it.">{(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!f.name} value={name} onInput={(e) => setName(e.currentTarget.value)} />}</Field>
        <Field label="Redirect addresses, one per line" error={uriError} hint="Where the app receives its sign-in answer: https://… (http only for localhost).">
          {(id, d) => <textarea id={id} aria-describedby={d} aria-invalid={!!uriError} value={uris} onInput={(e) => setUris(e.currentTarget.value)} />}
        </Field>
        <FormError error={submit.error} shown={['name', 'validRedirectUris', ...Object.keys(f).filter((k) => k.startsWith('validRedirectUris['))]} />
        <button type="submit" disabled={submit.busy}>{submit.busy ? 'Creating…' : 'Create credential'}</button>
      </CardForm>
    </>
  );
}
