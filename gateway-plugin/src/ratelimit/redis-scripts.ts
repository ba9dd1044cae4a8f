/**
 * The Lua scripts the Redis-backed limiters run: each is one atomic step, so gateway processes
 * sharing a Redis never interleave inside a check.
 */
import { createHash } from 'node:crypto';
import type { RedisClient } from '../sessions/redis-connection.js';

/**
 * Tyk's sliding log (internal/rate/scripts/sliding_log_add.lua): trim the log to the window, count
 * it, log this request (blocked or not: spike arrest), expire the log with the window.
 * KEYS[1] log; ARGV: now (µs), window start (µs), max allowed, per (s), member.
 * Returns {count before this request, remaining, earliest log entry that must leave (µs)}.
 */
export const SLIDING_LOG_ADD = `local key = KEYS[1]
local now = ARGV[1]
local max_allowed = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[2])
local count = redis.call('ZCARD', key)
redis.call('ZADD', key, now, ARGV[5])
redis.call('EXPIRE', key, tonumber(ARGV[4]))
local remaining = max_allowed - count - 1
if remaining < 0 then remaining = 0 end
local earliest = now
if count >= max_allowed and max_allowed > 0 then
  local oldest = redis.call('ZRANGE', key, -max_allowed, -max_allowed, 'WITHSCORES')
  if #oldest > 0 then earliest = oldest[2] end
end
return {count, remaining, tostring(earliest)}`;

/**
 * A fixed window: one counter that expires `per` after the window's first request.
 * KEYS[1] counter; ARGV[1] per (ms). Returns {count including this request, ms left}.
 */
export const FIXED_WINDOW = `local n = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if n == 1 or ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {n, ttl}`;

/**
 * Smoothing (internal/rate/smoothing.go, in one step instead of a lock around get and set):
 * the allowance starts at `threshold`; once its hold-off has passed, a rate at or above
 * A - step*trigger raises it by step (not above the rate), a rate at or below
 * (A - step) - step*trigger lowers it by step (not below threshold); each change starts a new
 * hold-off of `delay`.
 * KEYS[1] allowance hash; ARGV: now ms, current rate, max rate, threshold, step, trigger,
 * delay (s), ttl (s). Returns {allowance, change: 1 up, -1 down, 0 none, previous allowance}.
 */
export const SMOOTHING = `local now = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local max_rate = tonumber(ARGV[3])
local threshold = tonumber(ARGV[4])
local step = tonumber(ARGV[5])
local trigger = tonumber(ARGV[6])
local delay = tonumber(ARGV[7]) * 1000
local h = redis.call('HMGET', KEYS[1], 'current', 'next')
local function keep(current)
  redis.call('HSET', KEYS[1], 'current', current, 'next', now + delay)
  redis.call('EXPIRE', KEYS[1], ARGV[8])
end
if not h[1] then
  keep(threshold)
  return {threshold, 0, threshold}
end
local current = tonumber(h[1])
if now < tonumber(h[2]) then return {current, 0, current} end
if rate >= current - trigger * step then
  local up = math.min(current + step, max_rate)
  if up ~= current then
    keep(up)
    return {up, 1, current}
  end
end
local down = current - step
if rate <= down - trigger * step then
  down = math.max(down, threshold)
  if down ~= current then
    keep(down)
    return {down, -1, current}
  end
end
return {current, 0, current}`;

const shas = new Map<string, string>();

/**
 * Runs a script by its SHA1 (EVALSHA: a few bytes per call instead of the script's text), sending
 * the text only when this Redis has not seen it yet (NOSCRIPT after a restart or a flush).
 */
export async function runScript(r: RedisClient, script: string, keys: string[], args: string[]): Promise<unknown> {
  let sha = shas.get(script);
  if (sha === undefined) {
    sha = createHash('sha1').update(script).digest('hex');
    shas.set(script, sha);
  }
  try {
    return await r.evalSha(sha, { keys, arguments: args });
  } catch (err) {
    if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
    return r.eval(script, { keys, arguments: args });
  }
}
