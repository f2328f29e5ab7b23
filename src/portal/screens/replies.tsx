import { useState } from 'preact/hooks';
import type { ScreenProps } from '../screen';
import { may, ReadOnlyNote } from '../roles';
import { graphql, request, type ResultOf } from '../graphql';
import { CardForm, Cards, DoneNote, Empty, Field, FormError, Loaded, SaveButton, formatCount, useCardEdits, useLoad, useSubmit } from '../ui';

const RepliesList = graphql(`
  query SavedReplies($business: ID!) {
    replyTemplates(business: $business, pageSize: 100, orderBy: [{ field: name, order: asc }]) { total data { id name body } }
  }
`);
const CreateReply = graphql(`
  mutation CreateSavedReply($business: ID!, $input: CreateReplyTemplateInput!) { createReplyTemplate(business: $business, input: $input) { id name } }
`);
const UpdateReply = graphql(`
  mutation UpdateSavedReply($business: ID!, $id: ID!, $input: UpdateReplyTemplateInput!) { updateReplyTemplate(business: $business, id: $id, input: $input) { id name } }
`);
const DeleteReply = graphql(`
  mutation DeleteSavedReply($business: ID!, $id: ID!) { deleteReplyTemplate(business: $business, id: $id) }
`);

type Reply = ResultOf<typeof RepliesList>['replyTemplates']['data'][number];

/** The API's limit on a saved reply's text (reply-template.service.ts), shown as the count is typed. */
const MAX_BODY = 2000;

/** Saved replies: the texts the Inbox's reply box starts from, written once for the answers a manager gives often. */
export default function SavedReplies({ session }: ScreenProps) {
  const business = session.business;
  const state = useLoad(() => request(RepliesList, { business }), business);
  const mayChange = may(session, 'cases:write');
  const edits = useCardEdits(state.reload);
  return (
    <>
      <h1 tabIndex={-1}>Saved replies</h1>
      <p>
        Answers you give unhappy guests often, ready to pick in the <a href="/portal/cases">Inbox</a>'s reply box, where each can be changed before it is sent.
      </p>
      {!mayChange && <ReadOnlyNote scope="cases:write">write, change and delete saved replies. You can read them here.</ReadOnlyNote>}
      <DoneNote done={edits.done} />
      <Loaded state={state} what="saved replies">
        {(data) =>
          data.replyTemplates.data.length ? (
            <Cards
              label="Saved replies"
              items={data.replyTemplates.data}
              facts={(r) => <p class="body">{r.body}</p>}
              edits={edits}
              mayChange={mayChange}
              consequence="It is no longer offered in the Inbox; replies already sent with it stay as they were."
              onDelete={(r) => request(DeleteReply, { business, id: r.id })}
              form={(r) => <ReplyForm business={business} reply={r} onSaved={(name) => edits.changed(`${name} saved.`)} />}
            />
          ) : (
            <Empty>No saved reply yet{mayChange ? ': write the first one below.' : '.'}</Empty>
          )
        }
      </Loaded>
      {mayChange && <ReplyForm business={business} onSaved={(name) => edits.changed(`${name} added.`)} />}
    </>
  );
}

function ReplyForm({ business, reply, onSaved }: { business: string; reply?: Reply; onSaved: (name: string) => void }) {
  const [name, setName] = useState(reply?.name ?? '');
  const [body, setBody] = useState(reply?.body ?? '');
  const submit = useSubmit();
  const f = submit.fields;
  return (
    <CardForm
      label={reply ? `Edit ${reply.name}` : 'New saved reply'}
      onSubmit={async () => {
        const input = { name, body };
        const saved = reply
          ? (await submit.run(() => request(UpdateReply, { business, id: reply.id, input })))?.updateReplyTemplate
          : (await submit.run(() => request(CreateReply, { business, input })))?.createReplyTemplate;
        if (!saved) return;
        if (!reply) {
          setName('');
          setBody('');
        }
        onSaved(saved.name);
      }}
    >
      {!reply && <h2>New saved reply</h2>}
      <Field label="Name" error={f.name} hint="For you, to find it in the list: “Late delivery”, “Cold food”. Guests never see it.">
        {(id, d) => <input id={id} aria-describedby={d} aria-invalid={!!f.name} value={name} onInput={(e) => setName(e.currentTarget.value)} />}
      </Field>
      <Field
        label="Text"
        error={f.body}
        hint={`What the guest reads, from your restaurant's name. ${formatCount(body.length)} of ${formatCount(MAX_BODY)} characters.`}
      >
        {(id, d) => <textarea id={id} rows={6} aria-describedby={d} aria-invalid={!!f.body} value={body} onInput={(e) => setBody(e.currentTarget.value)} />}
      </Field>
      <FormError error={submit.error} shown={['name', 'body']} />
      <SaveButton busy={submit.busy} label={reply ? 'Save reply' : 'Add saved reply'} />
    </CardForm>
  );
}
