import { useRef, useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { may, ReadOnlyNote } from '../roles';
import { MEMBERSHIP_ROLES, rolesAllowing, type MembershipRole } from '../../auth/roles';
import type { Scope } from '../../auth/scopes';
import { graphql, request } from '../graphql';
import { useLiveEvents } from '../live';
import { AskFirst, Empty, Failure, FormError, Loaded, Options, Table, TextField, formatDate, useLoad, useSubmit, ChoiceField, CardForm } from '../ui';

const MembersList = graphql(`
  query MembersList($business: ID!) {
    members(business: $business, pageSize: 100, orderBy: [{ field: createdAt, order: asc }]) { data { id user email name role createdAt } }
    invitations(business: $business, pageSize: 100, orderBy: [{ field: createdAt, order: asc }]) { data { id email role expiresAt createdAt } }
    senders: feedbackChannels(business: $business)
  }
`);
const CreateInvitation = graphql(`
  mutation CreateInvitation($business: ID!, $input: CreateInvitationInput!) { createInvitation(business: $business, input: $input) { id email role expiresAt } }
`);
const DeleteInvitation = graphql(`
  mutation DeleteInvitation($business: ID!, $id: ID!) { deleteInvitation(business: $business, id: $id) }
`);
const UpdateMember = graphql(`
  mutation UpdateMember($business: ID!, $id: ID!, $input: UpdateMemberInput!) { updateMember(business: $business, id: $id, input: $input) { id role } }
`);
const DeleteMember = graphql(`
  mutation DeleteMember($business: ID!, $id: ID!) { deleteMember(business: $business, id: $id) }
`);

/** What each role may do, in words, each row decided by the scopes it needs in the table the server enforces (src/auth/roles.ts). */
const CAN: [string, Scope[]][] = [
  ['Read surveys, feedback, orders, locations and analytics', ['surveys:read', 'submissions:read', 'orders:read', 'locations:read', 'analytics:read']],
  ['Change surveys, metrics, locations, orders and feedback flows', ['surveys:write', 'metrics:write', 'locations:write', 'orders:write', 'flows:write']],
  ['Manage webhooks, API credentials and the order integration', ['webhooks:write', 'credentials:write', 'orders:write']],
  ['See members', ['members:read']],
  ['Invite members, change roles, remove members', ['members:write']],
];
const roleMay = (role: MembershipRole, scopes: Scope[]) => scopes.every((scope) => rolesAllowing(scope).includes(role));

function RolesTable() {
  return (
    <section aria-labelledby="roles">
      <h2 id="roles">What each role may do</h2>
      <Table class="role-table" columns={['Action', ...MEMBERSHIP_ROLES]}>
        {CAN.map(([action, scopes]) => (
          <tr key={action}>
            <th scope="row">{action}</th>
            {MEMBERSHIP_ROLES.map((r) => (
              <td key={r}>{roleMay(r, scopes) ? 'Yes' : 'No'}</td>
            ))}
          </tr>
        ))}
      </Table>
    </section>
  );
}

/** What the screen hears live: a member joins (an invitation accepted), changes or goes; an invitation is sent or revoked. */
const LIVE_TYPES = ['member.created', 'member.updated', 'member.deleted', 'invitation.created', 'invitation.deleted', 'invitation.accepted'];

/**
 * Who works for the business, and who is invited. Owners invite by e-mail and role (every invitation is e-mailed: the
 * link signs the person up, or in when the address has an account, and joins them; nobody joins without accepting), revoke invitations, change roles
 * and remove; everyone else sees the lists read-only, with the reason. The API keeps the last owner. The lists follow
 * live: an invitation accepted elsewhere becomes a member here without a reload.
 */
export default function Members({ session }: ScreenProps) {
  const business = session.business;
  const mayChange = may(session, 'members:write');
  const state = useLoad(() => request(MembersList, { business }), business);
  // No e-mail sender on this installation (no SMTP_URL, no dev outbox): an invitation waits for one.
  const cannotMail = state.data ? !state.data.senders.includes('email') : false;
  useLiveEvents(business, LIVE_TYPES, state.reload);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<MembershipRole>('staff');
  const [removing, setRemoving] = useState<string>();
  const [revoking, setRevoking] = useState<string>();
  const [done, setDone] = useState<string>();
  const invitationsHeading = useRef<HTMLHeadingElement>(null);
  const invite = useSubmit();
  const change = useSubmit();
  const f = invite.fields;
  /**
   * A row's Remove… or Revoke…, asked in place (`open`: the row of the list whose question is open): a success is said
   * in the status line, then the lists are read again; `settle` runs as the question closes (the focus goes back).
   */
  const askFirst = (q: {
    open: [string | undefined, (row: string | undefined) => void];
    row: string;
    id: string;
    ask: string;
    label: string;
    question: string;
    answer: string;
    remove: () => Promise<unknown>;
    said: string;
    settle?: () => void;
  }) => {
    const [asking, setAsking] = q.open;
    return (
      <AskFirst
        id={q.id}
        ask={q.ask}
        label={q.label}
        question={q.question}
        answer={q.answer}
        asking={asking === q.row}
        busy={change.busy}
        onAsk={() => {
          setDone(undefined);
          setAsking(q.row);
        }}
        onAnswer={async () => {
          if (await change.run(q.remove)) setDone(q.said);
          setAsking(undefined);
          state.reload();
          q.settle?.();
        }}
        onCancel={() => {
          setAsking(undefined);
          q.settle?.();
        }}
      />
    );
  };
  return (
    <>
      <h1 tabIndex={-1}>Members</h1>
      {!mayChange && <ReadOnlyNote scope="members:write">invite, change and remove members. You can see who works here.</ReadOnlyNote>}
      {done && (
        <p class="ok" role="status">
          {done}
        </p>
      )}
      <Loaded state={state} what="members">
        {(data) => (
          <>
            {data.members.data.length ? (
              <Table caption="Members" columns={['Member', 'Role', 'Since', ...(mayChange ? ['Remove'] : [])]}>
                {data.members.data.map((m) => {
                  const label = m.name ? `${m.name} (${m.email})` : m.email;
                  const you = m.user === session.user;
                  return (
                    <tr key={m.id}>
                      <td>
                        {label}
                        {you && <span class="muted"> · you</span>}
                      </td>
                      <td>
                        {mayChange ? (
                          <select
                            aria-label={`Role of ${m.email}`}
                            value={m.role}
                            disabled={change.busy}
                            onChange={async (e) => {
                              const next = e.currentTarget.value as MembershipRole;
                              setDone(undefined);
                              const r = await change.run(() => request(UpdateMember, { business, id: m.id, input: { role: next } }));
                              if (r) setDone(`${m.email} is now ${next}.`);
                              state.reload();
                            }}
                          >
                            <Options of={MEMBERSHIP_ROLES} />
                          </select>
                        ) : (
                          m.role
                        )}
                      </td>
                      <td>{formatDate(m.createdAt)}</td>
                      {mayChange && (
                        <td>
                          {askFirst({
                            open: [removing, setRemoving],
                            row: m.id,
                            id: `rm-${m.id}`,
                            ask: 'Remove…',
                            label: `Remove ${m.email}…`,
                            question: `Remove ${m.email}? They lose access to this business at once: every token they hold for it is revoked.`,
                            answer: 'Remove them',
                            remove: () => request(DeleteMember, { business, id: m.id }),
                            said: `${m.email} was removed.`,
                          })}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </Table>
            ) : (
              <Empty>No member yet.</Empty>
            )}
            <h2 id="invitations" tabIndex={-1} ref={invitationsHeading}>
              Pending invitations
            </h2>
            {data.invitations.data.length ? (
              <Table labelledBy="invitations" columns={['Invited', 'Role', 'Sent', 'Link works until', ...(mayChange ? ['Revoke'] : [])]}>
                {data.invitations.data.map((inv) => {
                  const expired = inv.expiresAt <= Date.now();
                  return (
                    <tr key={inv.id}>
                      <td>{inv.email}</td>
                      <td>{inv.role}</td>
                      <td>{formatDate(inv.createdAt)}</td>
                      <td>
                        {expired ? (
                          <>
                            <span class="status failed">expired</span> {formatDate(inv.expiresAt)}
                          </>
                        ) : (
                          formatDate(inv.expiresAt)
                        )}
                      </td>
                      {mayChange && (
                        <td>
                          {askFirst({
                            open: [revoking, setRevoking],
                            row: inv.id,
                            id: `rv-${inv.id}`,
                            ask: 'Revoke…',
                            label: `Revoke the invitation of ${inv.email}…`,
                            question: expired
                              ? `Delete the expired invitation of ${inv.email}? You can then invite them again.`
                              : `Revoke the invitation of ${inv.email}? The link e-mailed to them stops working at once: opening it says the invitation was withdrawn. You can invite them again later.`,
                            answer: expired ? 'Delete it' : 'Revoke it',
                            remove: () => request(DeleteInvitation, { business, id: inv.id }),
                            said: expired
                              ? `The expired invitation of ${inv.email} was deleted.`
                              : `The invitation of ${inv.email} was revoked: its link no longer works.`,
                            settle: () => invitationsHeading.current?.focus(),
                          })}
                        </td>
                      )}
                    </tr>
                  );
                })}
              </Table>
            ) : (
              <Empty>No invitation is waiting for an answer.</Empty>
            )}
          </>
        )}
      </Loaded>
      {change.error ? <Failure error={change.error} /> : null}
      {mayChange && (
        <CardForm
          label="Invite a member"
          onSubmit={async () => {
            setDone(undefined);
            const r = await invite.run(() => request(CreateInvitation, { business, input: { email, role } }));
            if (r) {
              const inv = r.createInvitation;
              setDone(
                cannotMail
                  ? `Invitation for ${inv.email} as ${inv.role} kept: it is e-mailed once this installation can send e-mail, and works until ${formatDate(inv.expiresAt)}.`
                  : `Invitation sent to ${inv.email} as ${inv.role}. The link in the e-mail works until ${formatDate(inv.expiresAt)}; they join only by accepting it there.`,
              );
              setEmail('');
              state.reload();
            }
          }}
        >
          <h2>Invite a member</h2>
          <p class="muted">
            We e-mail the address a link, valid for 7 days. With it the person creates their account (or signs in, if the address has one already) and joins
            with the role you choose: nobody joins without accepting, whether or not they have an account. Until then the invitation is listed above, where you
            can revoke it.
          </p>
          {cannotMail && (
            <p class="empty" role="note">
              This installation cannot send e-mail yet: an invitation is kept, and e-mailed once the operator configures a sender (<code>SMTP_URL</code>).
            </p>
          )}
          <div class="row">
            <TextField label="E-mail" error={f.email} value={email} onValue={setEmail} input={{ type: 'email', autoComplete: 'off' }} />
            <ChoiceField label="Role" error={f.role} value={role} choices={MEMBERSHIP_ROLES} onChange={setRole} />
          </div>
          <FormError error={invite.error} shown={['email', 'role']} />
          <button type="submit" disabled={invite.busy}>
            {invite.busy ? 'Inviting…' : 'Invite'}
          </button>
        </CardForm>
      )}
      <RolesTable />
    </>
  );
}
