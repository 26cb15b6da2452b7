#!/usr/bin/env bash
# A tour of every main job of pms against the built-in sandbox, with real output only. It starts a
# sandbox (clock 60x faster, consent approved at once) whose App Events go to `pms webhooks listen`,
# then: logs in (OAuth with PKCE), lists Properties, exports a week of rates, raises them 10 %,
# previews and imports them (waiting for the batch), exports them as an Excel workbook and reads it
# back with a dry run, syncs the bookings into SQLite and counts them by
# status, lets a guest write, reads the conversation and replies, moves the guest's stay, and shows
# the App Events the listener received meanwhile. Everything lives in a temporary directory; the
# directory and every process the demo started are removed on exit, failure or Ctrl-C included.
# Off a terminal nothing carries escape codes. Needs the build (npm ci makes it; or npm run build).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -f oclif.manifest.json ] || [ ! -d dist/commands ]; then
  echo "demo: pms is not built: run npm ci (or npm run build) first" >&2
  exit 1
fi
# Only the sandbox is talked to: a login, token, profile or database of the user's own environment
# never reaches it, and loopback addresses are never sent through a proxy.
unset PMS_ACCESS_TOKEN PMS_APP_URL PMS_CLIENT_ID PMS_CLIENT_SECRET PMS_PROFILE PMS_SANDBOX_ADMIN_URL PMS_SYNC_DATABASE_URL PMS_WEBHOOK_SECRET
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"
export PMS_CONFIG_DIR NO_COLOR=1
pms() { node bin/run.js "$@"; }

work="$(mktemp -d)"
PMS_CONFIG_DIR="$work/config"
# Background commands run node directly (not through the function), so that $! is the process
# itself and the cleanup's SIGTERM reaches it. Each id is forgotten once waited for, so that a
# number the system gave to another process since is never signalled.
listener_pid="" login_pid="" sandbox_pid=""
cleanup() {
  for pid in "$listener_pid" "$login_pid" "$sandbox_pid"; do [ -z "$pid" ] || kill "$pid" 2>/dev/null || true; done
  for pid in "$listener_pid" "$login_pid" "$sandbox_pid"; do [ -z "$pid" ] || wait "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# Bold headings on a terminal only: a log of the demo carries no escape codes.
if [ -t 2 ]; then step() { printf '\n\033[1m== %s\033[0m\n' "$*" >&2; }; else step() { printf '\n== %s\n' "$*" >&2; }; fi

# Waits until FILE has a line matching the extended regex PATTERN while process PID runs; else shows
# FILE and LOG (what the process said) and fails.
wait_for() {
  local file=$1 pattern=$2 pid=$3 log=${4:-$1}
  for _ in $(seq 1 600); do
    grep -qE -- "$pattern" "$file" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  grep -qE -- "$pattern" "$file" 2>/dev/null && return 0
  echo "demo: no line matching '$pattern' came in $(basename "$file"); what the process said:" >&2
  cat "$log" >&2 || true
  return 1
}
# A port of 127.0.0.1 nothing listens on now, so that the demo runs beside a pms login waiting on
# the default callback port, or beside another run of itself.
free_port() { node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close() })'; }

step "Starting the sandbox (clock 60x faster, consent approved at once, App Events to a webhook listener)"
hook_port="$(free_port)"
callback="http://127.0.0.1:$(free_port)/callback"
node bin/run.js sandbox start --port 0 --json --speed 60 --auto-approve --redirect-uri "$callback" \
  --webhook-url "http://127.0.0.1:$hook_port/webhooks" >"$work/sandbox.json" 2>"$work/sandbox.log" &
sandbox_pid=$!
wait_for "$work/sandbox.json" '}$' "$sandbox_pid" "$work/sandbox.log"
{ read -r app_url; read -r client_id; read -r client_secret; read -r webhook_secret; } < <(node -e '
const j = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8").split("\n")[0])
console.log([j.app_url, j.client_id, j.client_secret, j.webhook_secret].join("\n"))' "$work/sandbox.json")
echo "sandbox at $app_url; App Events go to http://127.0.0.1:$hook_port/webhooks" >&2

step "pms webhooks listen --port $hook_port --out events.jsonl (signing secret in PMS_WEBHOOK_SECRET)"
PMS_WEBHOOK_SECRET="$webhook_secret" node bin/run.js webhooks listen --port "$hook_port" --out "$work/events.jsonl" \
  >/dev/null 2>"$work/listen.log" &
listener_pid=$!
wait_for "$work/listen.log" '^Listening on' "$listener_pid"
head -1 "$work/listen.log" >&2

step "pms login"
PMS_CLIENT_SECRET="$client_secret" node bin/run.js login --app-url "$app_url" --client-id "$client_id" --redirect-uri "$callback" \
  --no-browser --insecure-storage >"$work/login.out" 2>"$work/login.err" </dev/null &
login_pid=$!
wait_for "$work/login.err" 'oauth/authorize' "$login_pid"
# The browser's part: the sandbox approves at once and redirects to the loopback callback.
authorize_url="$(grep -o 'http[^ ]*oauth/authorize[^ ]*' "$work/login.err" | head -1)"
node -e 'fetch(process.argv[1]).then((r) => r.text())' "$authorize_url"
wait "$login_pid" || { login_pid=""; cat "$work/login.err" >&2; exit 1; }
login_pid=""
# The address and the advice for a browser elsewhere are done with: show the outcome only.
echo "(the sandbox approved the consent page at once: --auto-approve)" >&2
cat "$work/login.out"

step "pms properties list (first 5)"
pms properties list >"$work/properties.tsv"
head -5 "$work/properties.tsv"

day() { node -e 'console.log(new Date(Date.now() + Number(process.argv[1]) * 86400e3).toISOString().slice(0, 10))' "$1"; }
from="$(day 2)"
to="$(day 8)"
step "pms rates export --from $from --to $to (3 Properties) > rates.csv"
ids=($(head -3 "$work/properties.tsv" | cut -f1))
pms rates export --from "$from" --to "$to" "${ids[@]/#/--property=}" >"$work/rates.csv"
head -5 "$work/rates.csv"

step "Raising every exported rate by 10 % in the spreadsheet (rates-raised.csv)"
node -e '
const fs = require("fs")
const [head, ...rows] = fs.readFileSync(process.argv[1], "utf8").trim().split(/\r?\n/)
const col = head.split(",").indexOf("rate")
const out = rows.map((r) => { const f = r.split(","); if (f[col]) f[col] = (Number(f[col]) * 1.1).toFixed(2); return f.join(",") })
fs.writeFileSync(process.argv[2], [head, ...out].join("\n") + "\n")' "$work/rates.csv" "$work/rates-raised.csv"

step "pms rates import rates-raised.csv --dry-run (nothing is stored)"
pms rates import "$work/rates-raised.csv" --dry-run

step "pms rates import rates-raised.csv --yes --wait"
pms rates import "$work/rates-raised.csv" --yes --wait

step "The same import again finds no value to change, and submits the file all the same: the latest file wins"
pms rates import "$work/rates-raised.csv" --yes

step "The same rates as an Excel workbook: pms rates export ... -o rates.xlsx, read back with pms rates import rates.xlsx --dry-run"
pms rates export --from "$from" --to "$to" "${ids[@]/#/--property=}" -o "$work/rates.xlsx"
pms rates import "$work/rates.xlsx" --dry-run

step "pms bookings sync --to bookings.sqlite"
pms bookings sync --to "$work/bookings.sqlite"

step "Bookings by status in bookings.sqlite (SELECT status, count(*) ... GROUP BY status)"
node -e '
const db = new (require("better-sqlite3"))(process.argv[1], {readonly: true})
const rows = db.prepare("SELECT status, count(*) AS n FROM bookings WHERE removed_at IS NULL GROUP BY status ORDER BY status").all()
for (const row of rows) console.log(`${row.status}\t${row.n}`)' "$work/bookings.sqlite"

guest_text="Our flight moved: could we arrive one day later?"
step "A guest writes: pms sandbox trigger guest_message --text \"$guest_text\""
pms sandbox trigger guest_message --text "$guest_text" | tee "$work/guest.out"
booking="$(awk -F'\t' '$1 == "booking_id" { print $2 }' "$work/guest.out")"

step "pms messages read $booking"
pms messages read "$booking"

reply_text="No problem: your stay now starts one day later. Safe travels!"
step "pms messages reply $booking --text \"$reply_text\""
pms messages reply "$booking" --text "$reply_text"

step "The host moves the stay one day later: pms sandbox trigger booking_changed --booking $booking"
pms sandbox trigger booking_changed --booking "$booking" | tee "$work/change.out"

step "What pms webhooks listen received: time, webhook-id, type, outcome, work done"
# Every App Event the triggers raised, and the message.sent of the reply, before the listener stops.
for id in $(awk -F'\t' '$1 == "event" { print $3 }' "$work/guest.out" "$work/change.out"); do
  wait_for "$work/listen.log" "$id" "$listener_pid"
done
wait_for "$work/listen.log" $'\tmessage\\.sent\t' "$listener_pid"
kill "$listener_pid"
wait "$listener_pid" || { listener_pid=""; exit 1; }
listener_pid=""
grep $'\t' "$work/listen.log"
echo "The last of them as appended to events.jsonl:" >&2
tail -1 "$work/events.jsonl"
