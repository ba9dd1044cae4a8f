/**
 * `engine hub -c hub.yaml`: runs the hub until SIGINT/SIGTERM.
 * `engine hub license --sub NAME [--days N] [-c hub.yaml]`: prints a governance license signed by
 * this hub's issuer key (made on first use), for an agent's `licenseKey`. With the embedded
 * database the folder is the running hub's alone: ask it instead (`POST /api/licenses/`).
 */
import { ConfigError, createLogger, registerCommand, runUntilSignal } from '@svc/engine';

function option(argv: string[], ...names: string[]): string | undefined {
  for (let i = 0; i < argv.length; i++) if (names.includes(argv[i]!)) return argv[i + 1];
  return undefined;
}

registerCommand('hub', {
  summary: 'Runs the governance hub (REST API, web page, agents over gRPC), or issues a license.',
  usage: 'engine hub -c hub.yaml\n  engine hub license --sub NAME [--days N] [-c hub.yaml]',
  async run(argv) {
    const { loadHubConfig } = await import('./hub-config.js');
    let config;
    try {
      config = await loadHubConfig(option(argv, '-c', '--config'));
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    const logger = createLogger({ level: 'INFO' });
    if (argv[0] === 'license') {
      const sub = option(argv, '--sub');
      const days = Number(option(argv, '--days') ?? 365);
      if (!sub || !Number.isFinite(days) || days <= 0) {
        process.stderr.write('usage: engine hub license --sub NAME [--days N] [-c hub.yaml]\n');
        return 1;
      }
      const [{ openStore, issuerKeyOf }, { issueLicense }] = await Promise.all([import('./hub.js'), import('../license/license.js')]);
      const { DataDirBusyError } = await import('./data-dir-lock.js');
      let store;
      try {
        store = await openStore(config);
      } catch (err) {
        if (!(err instanceof DataDirBusyError)) throw err;
        process.stderr.write(`${err.message}: ask the running hub instead: POST /api/licenses/ {"sub": "${sub}", "days": ${days}} with your X-API-Key\n`);
        return 1;
      }
      try {
        process.stdout.write(`${issueLicense(await issuerKeyOf(store), sub, Math.round(days * 86400))}\n`);
      } finally {
        await store.sql.close();
      }
      return 0;
    }
    const { Hub } = await import('./hub.js');
    const { code } = await runUntilSignal([new Hub(config, logger)], { logger, timeoutMs: 10_000 });
    return code;
  },
});
