/** Screens whose APIs arrive with other issues (analytics #13, feedback flows #16, members #14): what they will show. */
export function Overview() {
  return (
    <>
      <h1 tabIndex={-1}>Overview</h1>
      <div class="empty">
        <p>The overview will chart your feedback at a glance: the score of each metric over time, NPS, the response rate, by location and channel, compared with the previous period, with a date range and a location filter.</p>
        <p>Its data comes from the analytics API, which is on its way. Meanwhile: <a href="/portal/surveys">set up a survey</a>, then read the answers under <a href="/portal/feedback">Feedback</a>.</p>
      </div>
    </>
  );
}

export function Flows() {
  return (
    <>
      <h1 tabIndex={-1}>Feedback flows</h1>
      <div class="empty">
        <p>Feedback flows will turn each order you receive into a feedback request by e-mail or SMS: which orders, which survey, how long after the order, with quiet hours and throttling, and a dry run with an order to see what would be sent.</p>
        <p>The flows API is on its way; nothing to set up here yet.</p>
      </div>
    </>
  );
}

export function Members() {
  return (
    <>
      <h1 tabIndex={-1}>Members</h1>
      <div class="empty">
        <p>Members will list who can open this business, with their role (owner, admin, staff): owners invite people, change roles and remove members, and what a role may not do is shown.</p>
        <p>The members API is on its way; until then owners add members with the admin CLI.</p>
      </div>
    </>
  );
}
