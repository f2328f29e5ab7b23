import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { may } from '../roles';
import { graphql, request } from '../graphql';
import { Empty, Failure, Field, FormError, Loaded, SecretOnce, formatDate, useLoad, useSubmit, CardForm, TextField } from '../ui';

const CredentialsList = graphql(`
  query CredentialsList($business: ID!) {
    credentials(business: $business, pageSize: 100) { data { id name clientId validRedirectUris requirePkce createdBy createdAt } }
  }
`);
const CreateCredential = graphql(`
  mutation CreateCredential($business: ID!, $input: CreateCredentialInput!) { createCredential(business: $business, input: $input) { id clientId clientSecret } }
`);
const UpdateCredential = graphql(`
  mutation UpdateCredential($business: ID!, $id: ID!, $input: UpdateCredentialInput!) { updateCredential(business: $business, id: $id, input: $input) { id requirePkce } }
`);
const RotateCredentialSecret = graphql(`
  mutation RotateCredentialSecret($business: ID!, $id: ID!) { rotateCredentialSecret(business: $business, id: $id) { id clientSecret } }
`);
const DeleteCredential = graphql(`
  mutation DeleteCredential($business: ID!, $id: ID!) { deleteCredential(business: $business, id: $id) }
`);

/** What requirePkce means, said once for the form and the list. */
const PKCE_HINT =
  'PKCE and the redirect address again at the token exchange (OAuth 2.1). Leave it off for an app written to the interface document, which sends neither.';

/**
 * OAuth credentials of apps that use this business's data: created with their redirect addresses (create a new one to
 * change them), held to PKCE or not (changed in place), their secret rotated, deleted. Those the signed-in person
 * created are marked: tokens their secret mints act for that person, and a new password does not stop them
 * (docs/accounts.md), so this is where they are ended after a reset.
 */
export default function Credentials({ session }: ScreenProps) {
  const business = session.business;
  const state = useLoad(() => request(CredentialsList, { business }), business);
  const [created, setCreated] = useState<{ clientId: string; clientSecret: string }>();
  const [asking, setAsking] = useState<{ id: string; action: 'rotate' | 'delete' }>();
  const [rotated, setRotated] = useState<{ id: string; clientSecret: string }>();
  const [name, setName] = useState('');
  const [uris, setUris] = useState('');
  const [requirePkce, setRequirePkce] = useState(false);
  const submit = useSubmit();
  const change = useSubmit();
  const mayChange = may(session, 'credentials:write');
  const f = submit.fields;
  const uriError = f.validRedirectUris ?? Object.entries(f).find(([k]) => k.startsWith('validRedirectUris['))?.[1];
  const rotate = async (id: string) => {
    const r = await change.run(() => request(RotateCredentialSecret, { business, id }));
    if (r) {
      setAsking(undefined);
      setRotated({ id, clientSecret: r.rotateCredentialSecret.clientSecret });
    }
  };
  const remove = async (id: string) => {
    if (await change.run(() => request(DeleteCredential, { business, id }))) {
      setAsking(undefined);
      state.reload();
    }
  };
  return (
    <>
      <h1 tabIndex={-1}>API credentials</h1>
      <p>
        Each app that reads or changes this business's data through the API (a POS, a partner's dashboard) gets its own credential: a client id and a secret for
        OAuth 2.0.
      </p>
      <Loaded state={state} what="credentials">
        {(data) => {
          const mine = data.credentials.data.filter((c) => c.createdBy === session.user).length;
          return data.credentials.data.length ? (
            <>
              {mine > 0 && (
                <p role="note" data-testid="yours">
                  You created {mine === 1 ? 'one of them' : `${mine} of them`}, marked below: the tokens an app mints with its secret act for you, and changing
                  your password does not stop them. If someone else may have used your account,{' '}
                  {mayChange ? 'rotate the secret of each' : 'ask an owner or a manager to rotate the secret of each'}.
                </p>
              )}
              <ul class="credentials">
                {data.credentials.data.map((c) => (
                  <li key={c.id} class="card">
                    <strong>{c.name}</strong> {c.createdBy === session.user && <span class="status">Created by you</span>}{' '}
                    <span class="muted">created {formatDate(c.createdAt)}</span>
                    <div>
                      Client id: <code>{c.clientId}</code>
                    </div>
                    <div>Redirect addresses: {c.validRedirectUris.join(', ')}</div>
                    {mayChange ? <PkceSwitch business={business} credential={c} /> : <div>PKCE: {c.requirePkce ? 'required' : 'optional'}</div>}
                    {rotated?.id === c.id && <SecretOnce label={`New client secret of ${c.name}`} value={rotated.clientSecret} />}
                    {!mayChange ? null : asking?.id === c.id ? (
                      <div class="confirm" role="alertdialog" aria-labelledby={`ask-${c.id}`}>
                        <p id={`ask-${c.id}`}>
                          {asking.action === 'rotate'
                            ? `Rotate the secret of ${c.name}? The current secret stops working at once and the tokens it minted are revoked: the app using client id ${c.clientId} needs the new secret, shown here once.`
                            : `Delete ${c.name}? Every token it was given stops working at once, and the app using client id ${c.clientId} can no longer sign in or call the API.`}
                        </p>
                        <button
                          type="button"
                          class="danger"
                          disabled={change.busy}
                          onClick={() => void (asking.action === 'rotate' ? rotate(c.id) : remove(c.id))}
                        >
                          {asking.action === 'rotate' ? 'Rotate it' : 'Delete it'}
                        </button>{' '}
                        <button type="button" class="secondary" onClick={() => setAsking(undefined)}>
                          Cancel
                        </button>
                      </div>
                    ) : (
                      <p class="actions">
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Rotate secret of ${c.name}…`}
                          onClick={() => setAsking({ id: c.id, action: 'rotate' })}
                        >
                          Rotate secret…
                        </button>{' '}
                        <button type="button" class="danger" aria-label={`Delete ${c.name}…`} onClick={() => setAsking({ id: c.id, action: 'delete' })}>
                          Delete…
                        </button>
                      </p>
                    )}
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <Empty>No credential yet. Create one below for each app that should call the API.</Empty>
          );
        }}
      </Loaded>
      {mayChange && (
        <p id="pkce-hint" class="muted">
          Require PKCE: {PKCE_HINT}
        </p>
      )}
      {change.error ? <Failure error={change.error} /> : null}
      {created && (
        <>
          <p>
            Client id: <code data-testid="client-id">{created.clientId}</code>
          </p>
          <SecretOnce label="Client secret" value={created.clientSecret} />
        </>
      )}
      {mayChange && (
        <CardForm
          label="New credential"
          onSubmit={async () => {
            const r = await submit.run(() =>
              request(CreateCredential, { business, input: { name, validRedirectUris: uris.split(/\s+/).filter(Boolean), requirePkce } }),
            );
            if (r) {
              setCreated(r.createCredential);
              setName('');
              setUris('');
              setRequirePkce(false);
              state.reload();
            }
          }}
        >
          <h2>New credential</h2>
          <TextField label="Name" error={f.name} hint="The app's name, as your staff know it." value={name} onValue={setName} />
          <Field
            label="Redirect addresses, one per line"
            error={uriError}
            hint="Where the app receives its sign-in answer: https://… (http only for localhost)."
          >
            {(id, d) => <textarea id={id} aria-describedby={d} aria-invalid={!!uriError} value={uris} onInput={(e) => setUris(e.currentTarget.value)} />}
          </Field>
          <Field label="Require PKCE" hint={PKCE_HINT}>
            {(id, d) => <input id={id} type="checkbox" aria-describedby={d} checked={requirePkce} onChange={(e) => setRequirePkce(e.currentTarget.checked)} />}
          </Field>
          <FormError error={submit.error} shown={['name', 'validRedirectUris', ...Object.keys(f).filter((k) => k.startsWith('validRedirectUris['))]} />
          <button type="submit" disabled={submit.busy}>
            {submit.busy ? 'Creating…' : 'Create credential'}
          </button>
        </CardForm>
      )}
    </>
  );
}

/** Held to PKCE or not, changed at once; shown as the owner set it while the change is under way, as before if it fails. */
function PkceSwitch({ business, credential }: { business: string; credential: { id: string; name: string; requirePkce: boolean } }) {
  const [on, setOn] = useState(credential.requirePkce);
  const change = useSubmit();
  return (
    <>
      <label class="check">
        <input
          type="checkbox"
          checked={on}
          disabled={change.busy}
          aria-label={`Require PKCE for ${credential.name}`}
          aria-describedby="pkce-hint"
          onChange={async (e) => {
            const next = e.currentTarget.checked;
            setOn(next);
            if (!(await change.run(() => request(UpdateCredential, { business, id: credential.id, input: { requirePkce: next } })))) setOn(!next);
          }}
        />{' '}
        Require PKCE
      </label>
      {change.error ? <Failure error={change.error} /> : null}
    </>
  );
}
