import { useState } from 'preact/hooks';
import type { ScreenProps } from '../main';
import { graphql, request } from '../graphql';
import { Empty, Failure, Field, FormError, Loaded, formatDate, useLoad, useSubmit, ChoiceField, CardForm } from '../ui';

const MembersList = graphql(`
  query MembersList($business: ID!) {
    members(business: $business, pageSize: 100, orderBy: [{ field: createdAt, order: asc }]) { data { id user email name role createdAt } }
  }
`);
const CreateMember = graphql(`
  mutation CreateMember($business: ID!, $input: CreateMemberInput!) { createMember(business: $business, input: $input) { id email role } }
`);
const UpdateMember = graphql(`
  mutation UpdateMember($business: ID!, $id: ID!, $input: UpdateMemberInput!) { updateMember(business: $business, id: $id, input: $input) { id role } }
`);
const DeleteMember = graphql(`
  mutation DeleteMember($business: ID!, $id: ID!) { deleteMember(business: $business, id: $id) }
`);

type Role = 'owner' | 'manager' | 'staff';
const ROLES: Role[] = ['owner', 'manager', 'staff'];

/** What each role may do: the rule of membership.roles.ts, in words. */
const CAN: [string, Record<Role, boolean>][] = [
  ['Read surveys, feedback, orders, locations and analytics', { owner: true, manager: true, staff: true }],
  ['Change surveys, metrics, locations, orders and feedback flows', { owner: true, manager: true, staff: false }],
  ['Manage webhooks, API credentials and the order integration', { owner: true, manager: true, staff: false }],
  ['See members', { owner: true, manager: true, staff: false }],
  ['Invite members, change roles, remove members', { owner: true, manager: false, staff: false }],
];

function RolesTable() {
  return (
    <section aria-labelledby="roles">
      <h2 id="roles">What each role may do</h2>
      <table class="role-table">
        <thead><tr><th scope="col">Action</th>{ROLES.map((r) => <th key={r} scope="col">{r}</th>)}</tr></thead>
        <tbody>
          {CAN.map(([action, by]) => (
            <tr key={action}><th scope="row">{action}</th>{ROLES.map((r) => <td key={r}>{by[r] ? 'Yes' : 'No'}</td>)}</tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/**
 * Who works for the business. Owners invite (an existing account, by its e-mail), change roles and remove; everyone
 * else sees the list read-only, with the reason. The API keeps the last owner.
 */
export default function Members({ session }: ScreenProps) {
  const business = session.business;
  const mayChange = session.scopes.includes('members:write');
  const state = useLoad(() => request(MembersList, { business }), business);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('staff');
  const [removing, setRemoving] = useState<string>();
  const [done, setDone] = useState<string>();
  const invite = useSubmit();
  const change = useSubmit();
  const f = invite.fields;
  return (
    <>
      <h1 tabIndex={-1}>Members</h1>
      {!mayChange && <p class="empty" role="note">Only owners invite, change and remove members. You can see who works here.</p>}
      {done && <p class="ok" role="status">{done}</p>}
      <Loaded state={state} what="members">
        {(data) =>
          data.members.data.length ? (
            <table>
              <thead><tr><th scope="col">Member</th><th scope="col">Role</th><th scope="col">Since</th>{mayChange && <th scope="col">Remove</th>}</tr></thead>
              <tbody>
                {data.members.data.map((m) => {
                  const label = m.name ? `${m.name} (${m.email})` : m.email;
                  const you = m.user === session.user;
                  return (
                    <tr key={m.id}>
                      <td>{label}{you && <span class="muted"> · you</span>}</td>
                      <td>
                        {mayChange ? (
                          <select
                            aria-label={`Role of ${m.email}`}
                            value={m.role}
                            disabled={change.busy}
                            onChange={async (e) => {
                              const next = e.currentTarget.value as Role;
                              const r = await change.run(() => request(UpdateMember, { business, id: m.id, input: { role: next } }));
                              if (r) setDone(`${m.email} is now ${next}.`);
                              state.reload();
                            }}
                          >
                            {ROLES.map((r) => <option key={r} value={r}>{r}</option>)}
                          </select>
                        ) : (
                          m.role
                        )}
                      </td>
                      <td>{formatDate(m.createdAt)}</td>
                      {mayChange && (
                        <td>
                          {removing === m.id ? (
                            <div class="confirm" role="alertdialog" aria-labelledby={`rm-${m.id}`}>
                              <p id={`rm-${m.id}`}>Remove {m.email}? They lose access to this business at once: every token they hold for it is revoked.</p>
                              <button
                                type="button"
                                class="danger"
                                disabled={change.busy}
                                onClick={async () => {
                                  if (await change.run(() => request(DeleteMember, { business, id: m.id }))) setDone(`${m.email} was removed.`);
                                  setRemoving(undefined);
                                  state.reload();
                                }}
                              >
                                Remove them
                              </button>{' '}
                              <button type="button" class="secondary" onClick={() => setRemoving(undefined)}>Cancel</button>
                            </div>
                          ) : (
                            <button type="button" class="danger" aria-label={`Remove ${m.email}…`} onClick={() => setRemoving(m.id)}>Remove…</button>
                          )}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </tbody>
            </table>
          ) : (
            <Empty>No member yet.</Empty>
          )
        }
      </Loaded>
      {change.error ? <Failure error={change.error} /> : null}
      {mayChange && (
        <CardForm
          label="Invite a member"
          onSubmit={async () => {
            const r = await invite.run(() => request(CreateMember, { business, input: { email, role } }));
            if (r) {
              setDone(`${r.createMember.email} joined as ${r.createMember.role}. They sign in with their own password and choose this business.`);
              setEmail('');
              state.reload();
            }
          }}
        >
          <h2>Invite a member</h2>
          <p class="muted">The person needs an account of their own on this service; they then find this business when they sign in.</p>
          <div class="row">
            <Field label="E-mail" error={f.email}>
              {(id, d) => <input id={id} type="email" autoComplete="off" aria-describedby={d} aria-invalid={!!f.email} value={email} onInput={(e) => setEmail(e.currentTarget.value)} />}
            </Field>
            <ChoiceField label="Role" error={f.role} value={role} choices={ROLES} onChange={setRole} />
          </div>
          <FormError error={invite.error} shown={['email', 'role']} />
          <button type="submit" disabled={invite.busy}>{invite.busy ? 'Inviting…' : 'Invite'}</button>
        </CardForm>
      )}
      <RolesTable />
    </>
  );
}
