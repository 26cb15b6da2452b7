/** The HTML of the consent page and of refused authorization requests. Every value is escaped. */
import {PERMISSION_DESCRIPTIONS} from '../../contract/openapi.js'
import type {AccountRecord, AppRecord, PropertyRecord} from '../state.js'

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => ({'&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;'})[char] as string)
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:44rem;margin:0 auto 2rem;padding:0 1rem;color:#1b1b1b;line-height:1.4}
.banner{background:#fff4d6;border:1px solid #e8c765;border-radius:0 0 6px 6px;padding:.4rem .8rem;font-size:.9rem}
header{display:flex;gap:1rem;align-items:center;margin:1.5rem 0 .5rem}
.logo{flex:none;width:3.5rem;height:3.5rem;border-radius:10px;background:#1f5fa8;color:#fff;font-size:1.8rem;font-weight:700;display:flex;align-items:center;justify-content:center}
h1{font-size:1.4rem;margin:0}.muted{color:#555}.who{margin:.5rem 0 1rem}
fieldset{border:1px solid #ccc;border-radius:6px;margin:1rem 0;padding:.5rem 1rem}legend{font-weight:600}
ul.perms{padding-left:1.2rem}ul.perms li{margin:.4rem 0}code{font-size:.85rem;color:#555}
.why{color:#444;margin:.1rem 0 0}.props{max-height:18rem;overflow:auto;border-top:1px solid #eee;margin-top:.5rem}
.error{color:#a40000;font-weight:600}
.actions{display:flex;gap:.75rem;margin-top:1rem}
button{font-size:1rem;padding:.5rem 1.4rem;border-radius:6px;border:1px solid #888;background:#fff;cursor:pointer}
button.primary{background:#1f5fa8;border-color:#1f5fa8;color:#fff}
.fine{font-size:.9rem;color:#555}`

const BANNER = '<div class="banner">Sandbox of the property-management service: no live calendar, booking or guest is touched.</div>'

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${BANNER}
${body}</body></html>
`
}

/** An authorization request that cannot go on: shown to the owner, never redirected. */
export function errorPage(message: string): string {
  return page(
    'Authorization request refused',
    `<header><h1>This connection request cannot be processed</h1></header>
<p class="error" id="error">${escapeHtml(message)}</p>
<p>Nothing was shared. Tell the publisher of the App that sent you here.</p>`,
  )
}

export interface ConsentView {
  app: AppRecord
  accounts: AccountRecord[]
  properties: PropertyRecord[]
  requestId: string
  /** Where the owner's decision is sent: its origin is shown so the owner knows where they go next. */
  redirectUri: string
  error?: string
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1)

export function consentPage(view: ConsentView): string {
  const {app} = view
  const permissions = app.permissions
    .map(
      (entry) =>
        `<li><strong>${escapeHtml(capitalised(PERMISSION_DESCRIPTIONS[entry.permission] ?? entry.permission))}</strong> <code>${escapeHtml(entry.permission)}</code><p class="why">Why: ${escapeHtml(entry.why)}</p></li>`,
    )
    .join('\n')
  const accounts = view.accounts
    .map(
      (account, index) =>
        `<label><input type="radio" name="account_id" value="${escapeHtml(account.id)}"${index === 0 ? ' checked' : ''}> ${escapeHtml(account.name)}</label><br>`,
    )
    .join('\n')
  const properties = view.accounts
    .map((account) => {
      const items = view.properties
        .filter((property) => property.account_id === account.id)
        .map(
          (property) =>
            `<label><input type="checkbox" name="property_ids" value="${escapeHtml(property.id)}"> ${escapeHtml(property.name)} <span class="muted">(${escapeHtml(property.currency)}, ${escapeHtml(property.timezone)})</span></label><br>`,
        )
        .join('\n')
      return `<p><em>${escapeHtml(account.name)}</em></p>\n${items}`
    })
    .join('\n')
  const owners = [...new Set(view.accounts.map((account) => account.owner_name))]
  const returnTo = new URL(view.redirectUri).origin
  return page(
    `Connect ${app.name}`,
    `<header><div class="logo" aria-hidden="true">${escapeHtml(app.name.charAt(0).toUpperCase())}</div>
<div><h1>${escapeHtml(app.name)} wants to connect to your account</h1>
<div class="muted">Published by <strong>${escapeHtml(app.publisher)}</strong> (${escapeHtml(app.contact_email)}), registered with the service by its operator.</div></div></header>
<p class="who">Signed in as <strong>${escapeHtml(owners.join(', '))}</strong>, primary owner: only you can approve.</p>
${view.error ? `<p class="error" id="error">${escapeHtml(view.error)}</p>` : ''}
<form method="post" action="/oauth/authorize/decision">
<input type="hidden" name="request_id" value="${escapeHtml(view.requestId)}">
<fieldset><legend>It will be allowed to (all of these or nothing)</legend><ul class="perms">
${permissions}
</ul></fieldset>
<fieldset><legend>Account to connect</legend>
${accounts}
</fieldset>
<fieldset><legend>Properties it may act on</legend>
<label><input type="radio" name="property_access" value="all" checked> All Properties of the account, including future ones</label><br>
<label><input type="radio" name="property_access" value="list"> Only the Properties ticked below (of the account chosen above)</label>
<div class="props">
${properties}
</div></fieldset>
<div class="actions"><button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button></div>
</form>
<p class="fine">Either way you go back to <strong>${escapeHtml(returnTo)}</strong>. You can disconnect ${escapeHtml(app.name)} at any time; it then loses access at once.</p>`,
  )
}
