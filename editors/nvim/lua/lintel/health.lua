-- :checkhealth lintel — the server command, its version, and per detected language which tools were found
-- (`lintel detect --json` on the current directory).
local M = {}

local health = vim.health

--- The server command without its `serve` subcommand: `{"lintel"}` or `{"python3", "-m", "lintel"}`.
---@param cmd string[]
local function cli_prefix(cmd)
  local prefix = {}
  for _, word in ipairs(cmd) do
    if word == 'serve' then
      break
    end
    table.insert(prefix, word)
  end
  return prefix
end

---@param argv string[]
---@return vim.SystemCompleted
local function run(argv)
  local ok, proc = pcall(vim.system, argv, { text = true })
  if not ok then
    return { code = -1, stdout = '', stderr = tostring(proc) }
  end
  return proc:wait(60000)
end

local function check_detection(prefix)
  local cwd = vim.fn.getcwd()
  health.start('lintel: tools for ' .. cwd)
  local proc = run(vim.list_extend(vim.deepcopy(prefix), { 'detect', '--json', cwd }))
  local ok, doc = pcall(vim.json.decode, proc.stdout or '')
  if proc.code ~= 0 or not ok then
    health.warn(('`lintel detect --json` failed (exit %s): %s'):format(proc.code, vim.trim(proc.stderr or '')))
    return
  end
  if #doc.projects == 0 then
    health.info('no Go, Rust, Node or Python project detected here (run :checkhealth from a workspace root)')
  end
  local missing_binaries = require('lintel.commands').missing_binaries
  for _, project in ipairs(doc.projects) do
    for _, check in ipairs(vim.fn.sort(vim.tbl_keys(project.checks))) do
      local spec = project.checks[check]
      local label = ('%s %s (%s): %s'):format(project.language, check, project.root, spec.tool)
      local missing = missing_binaries(spec)
      if spec.notConfigured then
        health.info(label .. ': not configured — ' .. spec.notConfigured)
      elseif #missing == 0 then
        local where = spec.binaries[1] and (' — ' .. spec.binaries[1].path) or ''
        health.ok(label .. where)
      else
        health.warn(label .. ': not found: ' .. table.concat(missing, ', '), 'install it, or set its path in lintel.toml')
      end
    end
  end
end

function M.check()
  health.start('lintel')
  if vim.fn.has('nvim-0.11') == 1 then
    health.ok('Neovim ' .. tostring(vim.version()))
  else
    health.error('Neovim 0.11 or newer is needed (vim.lsp.config)')
  end

  local cmd = require('lintel').cmd()
  local exe = vim.fn.exepath(cmd[1])
  if exe == '' then
    health.error(
      ('server command `%s` is not executable'):format(table.concat(cmd, ' ')),
      { 'pip install lintel-lsp', 'or set `cmd` in require("lintel").setup()' }
    )
    return
  end
  health.ok(('server command: %s (%s)'):format(table.concat(cmd, ' '), exe))

  local prefix = cli_prefix(cmd)
  local version = run(vim.list_extend(vim.deepcopy(prefix), { '--version' }))
  if version.code ~= 0 then
    health.error(('`%s --version` failed: %s'):format(table.concat(prefix, ' '), vim.trim(version.stderr or '')))
    return
  end
  health.ok('version: ' .. vim.trim(version.stdout))

  local clients = vim.lsp.get_clients({ name = 'lintel' })
  for _, client in ipairs(clients) do
    health.info(('client %d running for %s'):format(client.id, client.root_dir or '(no root)'))
  end
  if #clients == 0 then
    health.info('no lintel client running (it starts when a Go, Rust, JS/TS or Python file opens)')
  end

  check_detection(prefix)
end

return M
