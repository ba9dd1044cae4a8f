import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '@svc/engine';
import { parseAgentConfig } from './agent-config.js';

const SEED = `licenseKey: svclic1.payload.signature
governanceDashboard:
  server:
    url: grpc-hub.example.com:443
  auth:
    token: an-agent-token
instances:
  - name: local-gateway
    type: svc
    config:
      host: http://gateway:8080
      auth: gateway-secret
  - name: aws
    type: cloudgw
    config:
      accessKeyId: AKIAEXAMPLE
      accessKeySecret: the-secret-key
      region: eu-west-1
      sessionToken: a-session-token
logLevel: debug
syncInterval: 5m
healthProbe:
  server:
    port: 5959
`;

const problems = (text: string, env: NodeJS.ProcessEnv = {}): string => {
  try {
    parseAgentConfig(text, 'agent.yaml', env);
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.message;
  }
  assert.fail('the config was accepted');
};

describe('agent-config.yaml', () => {
  it("reads the governance spec's file, every field", () => {
    assert.deepEqual(parseAgentConfig(SEED, 'agent.yaml', {}), {
      licenseKey: 'svclic1.payload.signature',
      hubAddress: 'grpc-hub.example.com:443',
      token: 'an-agent-token',
      instances: [
        { name: 'local-gateway', type: 'svc', config: { host: 'http://gateway:8080', auth: 'gateway-secret' } },
        {
          name: 'aws',
          type: 'cloudgw',
          config: { accessKeyId: 'AKIAEXAMPLE', accessKeySecret: 'the-secret-key', region: 'eu-west-1', sessionToken: 'a-session-token' },
        },
      ],
      logLevel: 'DEBUG',
      probePort: 5959,
      syncIntervalMs: 300_000,
    });
  });

  it('takes the license from SVC_AGENT_LICENSEKEY when the file has none; defaults logLevel and the probe port', () => {
    const text = SEED.replace('licenseKey: svclic1.payload.signature\n', '').replace(/logLevel[\s\S]*$/, '');
    const c = parseAgentConfig(text, 'agent.yaml', { SVC_AGENT_LICENSEKEY: 'svclic1.from.env' });
    assert.equal(c.licenseKey, 'svclic1.from.env');
    assert.equal(c.logLevel, 'INFO');
    assert.equal(c.probePort, 5959);
    assert.equal(c.syncIntervalMs, 0, 'no syncInterval: only when the hub asks');
    assert.match(problems(text), /^agent\.yaml:1:1 licenseKey is required \(or set SVC_AGENT_LICENSEKEY\)$/);
  });

  it('reads ${VAR} references from the environment, and says where an unset one is', () => {
    const text = SEED.replace('token: an-agent-token', 'token: ${AGENT_TOKEN}').replace('port: 5959', 'port: ${PROBE_PORT:6060}');
    const c = parseAgentConfig(text, 'agent.yaml', { AGENT_TOKEN: 'from-env' });
    assert.equal(c.token, 'from-env');
    assert.equal(c.probePort, 6060);
    assert.match(problems(text), /^agent\.yaml:6:12 environment variable AGENT_TOKEN is not set/);
  });

  it('says where each problem is, all of them at once, and never quotes a secret', () => {
    const bad = SEED.replace('grpc-hub.example.com:443', 'https://grpc-hub.example.com')
      .replace('type: cloudgw', 'type: azure')
      .replace('      auth: gateway-secret\n', '')
      .replace('port: 5959', 'port: 70000')
      .replace('syncInterval: 5m', 'syncInterval: 500ms');
    const msg = problems(bad);
    assert.deepEqual(msg.split('\n'), [
      'agent.yaml:4:10 governanceDashboard.server.url must be host:port with no protocol, such as grpc-hub.example.com:443 (got "https://grpc-hub.example.com")',
      'agent.yaml:11:7 instances[0].config.auth is required',
      'agent.yaml:13:11 instances[1].type must be svc, tyk or cloudgw, not "azure"',
      'agent.yaml:20:15 syncInterval must be a duration of at least 1s, such as 5m or 1h30m (got "500ms")',
      'agent.yaml:23:11 healthProbe.server.port must be a port number (0-65535)',
    ]);
    assert.match(problems(SEED.replace('syncInterval: 5m', 'syncInterval: soon')), /^agent\.yaml:21:15 syncInterval must be a duration of at least 1s/);
    for (const secret of ['an-agent-token', 'the-secret-key', 'a-session-token', 'svclic1.payload.signature']) assert.ok(!msg.includes(secret));
  });

  it('reads a tyk instance as an svc one (host and auth)', () => {
    const c = parseAgentConfig(SEED.replace('type: svc', 'type: tyk'), 'agent.yaml', {});
    assert.deepEqual(c.instances[0], { name: 'local-gateway', type: 'tyk', config: { host: 'http://gateway:8080', auth: 'gateway-secret' } });
    assert.match(
      problems(SEED.replace('type: svc', 'type: tyk').replace('http://gateway:8080', 'gateway')),
      /instances\[0\]\.config\.host must be the gateway's URL/,
    );
  });

  it('reports a YAML syntax error and a missing list with positions', () => {
    assert.match(problems('licenseKey: [unclosed\n'), /^agent\.yaml:\d+:\d+ /);
    assert.match(
      problems(SEED.replace(/instances:[\s\S]*?logLevel/, 'instances: []\nlogLevel')),
      /^agent\.yaml:7:12 instances: expected a list of at least one provider$/,
    );
    assert.match(problems(SEED.replace('name: aws', 'name: local-gateway')), /instances\[1\]\.name "local-gateway" is used twice/);
  });
});
