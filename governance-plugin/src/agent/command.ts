/**
 * `engine agent -c agent-config.yaml`: checks the license, starts the health probe and runs the
 * sync stream `governance_sync` → the default normalising mapping → `governance_hub`, until
 * SIGINT/SIGTERM. A healthy start logs: license validated, agent started, health probe server
 * started, health stream established, agent registered with sync stream established, waiting for
 * sync requests. A bad config or license: a clear message and exit 1.
 */
import { buildStream, ConfigError, createLogger, defineStream, registerCommand, runUntilSignal } from '@svc/engine';

/**
 * The default normalising mapping: every field the hub stores, typed, with the name falling back
 * to the id. A user's own stream may put any mapping (or more outputs) here.
 */
export const DEFAULT_MAPPING = `root = this
root.api_id = this.api_id.string()
root.name = this.name.or(this.api_id).string()
root.kind = this.kind.or("").string()
root.version = this.version.or("").string()
root.base_path = this.base_path.or("").string()
root.updated_at_unix_ms = this.updated_at_unix_ms.or(0)`;

registerCommand('agent', {
  summary: 'Runs a governance agent: syncs API definitions from providers to the hub.',
  usage: 'engine agent -c agent-config.yaml',
  async run(argv) {
    const i = argv.findIndex((a) => a === '-c' || a === '--config');
    const file = i >= 0 ? argv[i + 1] : 'agent-config.yaml';
    const [{ loadAgentConfig }, { verifyLicense, LicenseError }, { HealthProbe }, { connectionNamed }] = await Promise.all([
      import('./agent-config.js'),
      import('../license/license.js'),
      import('./health-probe.js'),
      import('./connections.js'),
    ]);
    let config;
    try {
      config = await loadAgentConfig(file!);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      process.stderr.write(`${err.message}\n`);
      return 1;
    }
    const logger = createLogger({ level: config.logLevel });
    try {
      const license = verifyLicense(config.licenseKey);
      logger.info(`license validated (for ${license.sub}, expires ${new Date(license.exp * 1000).toISOString()})`);
    } catch (err) {
      if (!(err instanceof LicenseError)) throw err;
      logger.error(`license invalid: ${err.message}`);
      return 1;
    }
    logger.info(
      `agent started (${config.instances.length} provider instance(s), hub ${config.hubAddress}${config.syncIntervalMs ? `, syncing every ${config.syncIntervalMs / 1000} s` : ''})`,
    );
    const def = await defineStream({
      config: {
        http: { enabled: false },
        logger: { level: config.logLevel },
        input: {
          governance_sync: {
            hub_address: config.hubAddress,
            token: config.token,
            license_key: config.licenseKey,
            connection: 'agent',
            sync_interval: `${config.syncIntervalMs}ms`,
            instances: config.instances.map((x) => ({ name: x.name, type: x.type, config: { ...x.config } })),
          },
        },
        pipeline: { threads: 1, processors: [{ mapping: DEFAULT_MAPPING }] },
        output: { governance_hub: { connection: 'agent' } },
      },
    });
    const probe = new HealthProbe(config.probePort, () => connectionNamed('agent')?.up === true, logger);
    const stream = await buildStream(def, { logger });
    const { code } = await runUntilSignal([probe, stream], { logger, timeoutMs: 10_000 });
    return code;
  },
});
