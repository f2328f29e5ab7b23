import { ConfigError, loadConfig } from './config.js';

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      databaseUrl: undefined,
      publicUrl: 'http://localhost:4000',
      surveyUrl: 'http://localhost:4000',
      logLevel: 'info',
      embeddedPgPort: 54329,
      dataDir: '.data',
    });
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
    [{ LOG_LEVEL: 'chatty' }, /LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent/],
  ])('refuses %j with a message naming the variable', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
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
