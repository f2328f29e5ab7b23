import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: undefined,
      trustProxyHops: 0,
      databaseUrl: undefined,
      databaseReplicaUrls: [],
      replicaMaxLagMs: 5_000,
      publicUrl: 'http://localhost:4000',
      surveyUrl: 'http://localhost:4000',
      signup: 'open',
      logLevel: 'info',
      embeddedPgPort: 54329,
      dataDir: '.data',
      workers: 64,
      eventRetentionDays: 90,
      webhooks: {
        retrySchedule: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000],
        allowPrivateNetworks: false,
        ratePerSecond: 10,
      },
      redisUrl: undefined,
      redisKeyPrefix: 'feedback:',
      rateLimits: {
        apiPerSecond: 100,
        apiBurst: 200,
        webhookPerSecond: 100,
        webhookBurst: 500,
        authFailuresPerClient: 10,
        authFailuresPerAddress: 50,
        authFailureWindowMs: 900_000,
      },
      metricsToken: undefined,
      feedback: {
        smtpUrl: undefined,
        mailFrom: 'Feedback <no-reply@localhost.localdomain>',
        twilio: undefined,
        smsGatewayUrl: undefined,
        smsInboundSecret: undefined,
      },
      oauth: { requirePkce: 'public' },
      sending: {
        sms: { newBusiness: 50, established: 1_000 },
        email: { newBusiness: 200, established: 5_000 },
        newDays: 7,
        perGuest: 5,
        invitationsPerDay: 20,
        accountMailsPerHour: 3,
      },
    });
  });

  it('reads the sending budgets, and refuses a budget of 0 or one that is not a count', () => {
    const config = loadConfig({
      SEND_BUDGET_SMS_NEW: '10',
      SEND_BUDGET_SMS: '100',
      SEND_BUDGET_EMAIL_NEW: '20',
      SEND_BUDGET_EMAIL: '200',
      SEND_BUDGET_NEW_DAYS: '0',
      SEND_BUDGET_PER_GUEST: '2',
      INVITATIONS_PER_DAY: '4',
      ACCOUNT_MAILS_PER_ADDRESS_HOUR: '1',
    });
    expect(config.sending).toEqual({
      sms: { newBusiness: 10, established: 100 },
      email: { newBusiness: 20, established: 200 },
      newDays: 0,
      perGuest: 2,
      invitationsPerDay: 4,
      accountMailsPerHour: 1,
    });
    expect(() => loadConfig({ SEND_BUDGET_SMS: '0', ACCOUNT_MAILS_PER_ADDRESS_HOUR: 'many' })).toThrow(
      /ACCOUNT_MAILS_PER_ADDRESS_HOUR must be an integer from 0 to 1000, got "many"[\s\S]*SEND_BUDGET_SMS must be at least 1/,
    );
  });

  it('reads the feedback senders, and refuses half a Twilio setting or a bad SMTP_URL', () => {
    const config = loadConfig({
      SMTP_URL: 'smtps://u:p@mail.example.com:465',
      MAIL_FROM: 'Cafe Uno <feedback@example.com>',
      TWILIO_ACCOUNT_SID: 'AC123',
      TWILIO_AUTH_TOKEN: 'secret',
      TWILIO_FROM: '+15005550006',
      SMS_INBOUND_SECRET: 'a-long-enough-secret',
    });
    expect(config.feedback).toEqual({
      smtpUrl: 'smtps://u:p@mail.example.com:465',
      mailFrom: 'Cafe Uno <feedback@example.com>',
      twilio: { accountSid: 'AC123', authToken: 'secret', from: '+15005550006', apiBase: 'https://api.twilio.com' },
      smsGatewayUrl: undefined,
      smsInboundSecret: 'a-long-enough-secret',
    });
    expect(() => loadConfig({ TWILIO_ACCOUNT_SID: 'AC123', SMTP_URL: 'http://mail' })).toThrow(
      /SMTP_URL must be a smtp: or smtps: URL[\s\S]*TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN and TWILIO_FROM go together/,
    );
  });

  it('reads MAIL_OUTBOX=dev, refuses another value and refuses it with NODE_ENV=production', () => {
    expect(loadConfig({ MAIL_OUTBOX: 'dev', NODE_ENV: 'development' }).feedback.outbox).toBe('dev');
    expect(loadConfig({}).feedback.outbox).toBeUndefined();
    expect(() => loadConfig({ MAIL_OUTBOX: 'yes' })).toThrow('MAIL_OUTBOX must be "dev" or unset, got "yes"');
    expect(() => loadConfig({ MAIL_OUTBOX: 'dev', NODE_ENV: 'production' })).toThrow(/MAIL_OUTBOX=dev is refused with NODE_ENV=production/);
  });

  it('reads the replicas and their lag in seconds or with a unit', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgresql://p@db:5432/f',
      DATABASE_REPLICA_URLS: 'postgresql://r@r1:5432/f, postgres://r@r2:5432/f',
      REPLICA_MAX_LAG: '2.5',
    });
    expect(config.databaseReplicaUrls).toEqual(['postgresql://r@r1:5432/f', 'postgres://r@r2:5432/f']);
    expect(config.replicaMaxLagMs).toBe(2_500);
    expect(loadConfig({ REPLICA_MAX_LAG: '500ms' }).replicaMaxLagMs).toBe(500);
    expect(loadConfig({ REPLICA_MAX_LAG: '5s' }).replicaMaxLagMs).toBe(5_000);
    expect(() => loadConfig({ REPLICA_MAX_LAG: 'soon' })).toThrow(/REPLICA_MAX_LAG must be one duration/);
    expect(() => loadConfig({ DATABASE_REPLICA_URLS: 'postgresql://r@r1/f' })).toThrow(/DATABASE_REPLICA_URLS needs DATABASE_URL/);
    expect(() => loadConfig({ DATABASE_URL: 'postgresql://p@db/f', DATABASE_REPLICA_URLS: 'mysql://r@r1/f' })).toThrow(
      /DATABASE_REPLICA_URLS must be a postgres: or postgresql: URL/,
    );
  });

  it('reads how long events are kept: whole days, at least as long as the deliveries that show them', () => {
    expect(loadConfig({ EVENT_RETENTION_DAYS: '365' }).eventRetentionDays).toBe(365);
    expect(loadConfig({ EVENT_RETENTION_DAYS: '30' }).eventRetentionDays).toBe(30);
    for (const bad of ['29', '0', '-5', '7.5', '90d', 'forever', '36501']) {
      expect(() => loadConfig({ EVENT_RETENTION_DAYS: bad })).toThrow(
        `EVENT_RETENTION_DAYS must be a whole number of days from 30 (webhook deliveries, kept 30 days, show their events) to 36500, got "${bad}"`,
      );
    }
  });

  it('reads the webhook settings', () => {
    const config = loadConfig({ WEBHOOK_RETRY_SCHEDULE: '1s, 500ms,2m', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WORKERS: '0', WEBHOOK_RATE_LIMIT: '1000' });
    expect(config.webhooks).toEqual({ retrySchedule: [1_000, 500, 120_000], allowPrivateNetworks: true, ratePerSecond: 1000 });
    expect(config.workers).toBe(0);
  });

  it('derives PUBLIC_URL from PORT and SURVEY_URL from PUBLIC_URL, without trailing slashes', () => {
    expect(loadConfig({ PORT: '8080' }).publicUrl).toBe('http://localhost:8080');
    const config = loadConfig({ PUBLIC_URL: 'https://api.example.com/', LOG_LEVEL: 'DEBUG' });
    expect(config.surveyUrl).toBe('https://api.example.com');
    expect(config.logLevel).toBe('debug');
  });

  it.each([
    [{ PORT: 'abc' }, /PORT must be a TCP port between 1 and 65535, got "abc"/],
    [{ PORT: '70000' }, /PORT must be a TCP port/],
    [{ EMBEDDED_PG_PORT: '0' }, /EMBEDDED_PG_PORT must be a TCP port/],
    [{ DATABASE_URL: 'mysql://x@y/z' }, /DATABASE_URL must be a postgres: or postgresql: URL/],
    [{ DATABASE_URL: 'not a url' }, /DATABASE_URL is not a valid URL/],
    [{ PUBLIC_URL: 'ftp://x' }, /PUBLIC_URL must be a http: or https: URL/],
    [{ SURVEY_URL: '::' }, /SURVEY_URL is not a valid URL/],
    [{ WEBHOOK_RETRY_SCHEDULE: '5s,soon' }, /WEBHOOK_RETRY_SCHEDULE must be comma-separated durations/],
    [{ WEBHOOK_RETRY_SCHEDULE: '10' }, /WEBHOOK_RETRY_SCHEDULE must be comma-separated durations/],
    [{ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'yes' }, /WEBHOOK_ALLOW_PRIVATE_NETWORKS must be true or false/],
    [{ HOST: 'every interface' }, /HOST must be an IP address to listen on/],
    [{ OAUTH_REQUIRE_PKCE: 'confidential' }, /OAUTH_REQUIRE_PKCE must be one of public, all, got "confidential"/],
    [{ OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE: 'true' }, /OAUTH_ALLOW_CONFIDENTIAL_WITHOUT_PKCE was removed.*OAUTH_REQUIRE_PKCE=all/],
    [{ WORKERS: '-1' }, /WORKERS must be an integer/],
    [{ TRUST_PROXY_HOPS: 'all' }, /TRUST_PROXY_HOPS must be an integer from 0 to 10, got "all"/],
    [{ TRUST_PROXY_HOPS: '11' }, /TRUST_PROXY_HOPS must be an integer from 0 to 10/],
    [{ WEBHOOK_RATE_LIMIT: '0' }, /WEBHOOK_RATE_LIMIT must be at least 1/],
    [{ LOG_LEVEL: 'chatty' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it("requires PKCE of public clients by default (the interface document's flow), of every client with OAUTH_REQUIRE_PKCE=all", () => {
    expect(loadConfig({}).oauth).toEqual({ requirePkce: 'public' });
    expect(loadConfig({ OAUTH_REQUIRE_PKCE: ' ALL ' }).oauth).toEqual({ requirePkce: 'all' });
  });

  it('reports every problem at once and never echoes a database password', () => {
    try {
      loadConfig({ PORT: 'x', DATABASE_URL: 'mysql://admin:hunter2@db/x' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect((err as ConfigError).problems).toHaveLength(2);
      expect((err as Error).message).not.toContain('hunter2');
      expect((err as Error).message).toContain('admin:***@');
    }
  });
});
