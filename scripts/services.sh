#!/usr/bin/env bash
# The real servers the tests talk to, on loopback: Prometheus and its Pushgateway (Debian's
# packages). Installs what is missing (apt-get, as root), starts what is not running, and is
# quick when everything is up already.
#
#   scripts/services.sh up       install if needed, start, wait until ready (idempotent)
#   scripts/services.sh down     stop what this script started
#   scripts/services.sh status   say what runs where
#
# Ports (loopback only) come from the environment, else these defaults; `up` writes the
# addresses to .services/env, which the tests read when the variables are not set:
#   SVC_PROMETHEUS_PORT=19090  SVC_PUSHGATEWAY_PORT=19091
#   SVC_METRICS_TARGET_PORT=19195  (where a test serves /metrics for Prometheus to scrape)
# Config, data, logs and pid files live under .services/ (gitignored).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.services"
HOST=127.0.0.1
PROM_PORT="${SVC_PROMETHEUS_PORT:-19090}"
PUSH_PORT="${SVC_PUSHGATEWAY_PORT:-19091}"
TARGET_PORT="${SVC_METRICS_TARGET_PORT:-19195}"
READY_TIMEOUT="${SVC_READY_TIMEOUT:-60}"

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
  [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
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

wait_ready() { # name url
  local deadline=$((SECONDS + READY_TIMEOUT))
  until ready "$2"; do
    if ! pid_of "$1" >/dev/null; then
      log "$1 exited; its log says:"; tail -n 20 "$DIR/$1/log" >&2 || true; return 1
    fi
    if [ $SECONDS -ge $deadline ]; then
      log "$1 not ready after ${READY_TIMEOUT}s; its log says:"; tail -n 20 "$DIR/$1/log" >&2 || true; return 1
    fi
    sleep 0.2
  done
}

start() { # name ready-url command...
  local name="$1" url="$2"
  shift 2
  mkdir -p "$DIR/$name"
  if pid_of "$name" >/dev/null && ready "$url"; then return 0; fi
  if ready "$url"; then
    # Started from another checkout on this machine (same ports, same config): use it.
    log "$name already answers at ${url%/-/ready}: using it"; return 0
  fi
  log "starting $name"
  (cd "$DIR/$name" && exec setsid "$@" >"$DIR/$name/log" 2>&1 < /dev/null) &
  echo $! >"$DIR/$name/pid"
  wait_ready "$name" "$url"
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
EOF
}

up() {
  mkdir -p "$DIR"
  install
  prometheus_config
  start pushgateway "http://$HOST:$PUSH_PORT/-/ready" \
    prometheus-pushgateway --web.listen-address="$HOST:$PUSH_PORT"
  start prometheus "http://$HOST:$PROM_PORT/-/ready" \
    prometheus --config.file="$DIR/prometheus/prometheus.yml" \
      --storage.tsdb.path="$DIR/prometheus/data" --storage.tsdb.retention.time=2d \
      --web.listen-address="$HOST:$PROM_PORT"
  write_env
  log "up: Prometheus http://$HOST:$PROM_PORT, Pushgateway http://$HOST:$PUSH_PORT, scraping $HOST:$TARGET_PORT"
}

status() {
  local name url
  for pair in "prometheus http://$HOST:$PROM_PORT/-/ready" "pushgateway http://$HOST:$PUSH_PORT/-/ready"; do
    name="${pair%% *}"; url="${pair#* }"
    if pid="$(pid_of "$name")" && ready "$url"; then echo "$name: running (pid $pid) at ${url%/-/ready}"
    else echo "$name: not running"
    fi
  done
}

case "${1:-}" in
  up) up ;;
  down) stop prometheus; stop pushgateway ;;
  status) status ;;
  *) echo "usage: $0 up|down|status" >&2; exit 2 ;;
esac
