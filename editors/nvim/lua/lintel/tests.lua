-- :LintelTest [cursor|file|last] runs the test under the cursor (the innermost one `lintel.discoverTests` found
-- there), the current file's tests, or the last request again, through `lintel.runTests`: failures go to the
-- quickfix list, a passed/failed line to vim.notify. It also keeps the server's code lenses ("▶ Run test") fresh,
-- and runs a lens's `lintel.runTests` the same way, so `vim.lsp.codelens.run()` shows its result.
local M = {}

local commands = require('lintel.commands')

-- The previous run's arguments, for `:LintelTest last` (one per Neovim: the last thing the user ran).
local state = { last = nil }

--- The innermost test or suite whose range holds 0-based `line` (ranges are LSP's: 0-based, end exclusive).
---@param tests table[] records of `lintel.discoverTests`
---@param line integer
---@return table?
function M.innermost(tests, line)
  local best, size
  for _, test in ipairs(tests) do
    local first, last = test.range.start.line, test.range['end'].line
    if test.range['end'].character == 0 and last > first then
      last = last - 1 -- an end at column 0 is the line before's end
    end
    if test.kind ~= 'file' and first <= line and line <= last and (size == nil or last - first <= size) then
      best, size = test, last - first
    end
  end
  return best
end

--- Asks the server for the tests of `path`; `callback(tests)` gets the records (nil after an error, notified).
---@param client vim.lsp.Client
---@param path string
---@param callback fun(tests: table[]?)
function M.discover(client, path, callback)
  local params = { command = 'lintel.discoverTests', arguments = { { path = path } } }
  client:request('workspace/executeCommand', params, function(err, result)
    if err then
      vim.notify(('lintel: lintel.discoverTests: %s'):format(err.message), vim.log.levels.ERROR)
      return callback(nil)
    end
    callback(result or {})
  end)
end

--- "✓ tests/test_x.py::test_a passed (0.4 s)" / "✗ tests/test_x.py: 2 failed (1.2 s)".
---@param result table RunResult
---@param args table the runTests arguments
---@return string, integer
function M.verdict(result, args)
  local what = (args.tests and #args.tests == 1) and args.tests[1] or vim.fn.fnamemodify(args.path or '.', ':.')
  local seconds = (result.durationMs or 0) / 1000
  local failed = #(result.failures or {})
  if result.timedOut or result.status == 'not_checked' or result.status == 'not_configured' then
    return commands.summary(result)
  elseif failed > 0 then
    return ('lintel: ✗ %s: %d failed (%.1f s)'):format(what, failed, seconds), vim.log.levels.WARN
  elseif result.ok then
    return ('lintel: ✓ %s passed (%.1f s)'):format(what, seconds), vim.log.levels.INFO
  end
  return commands.summary(result)
end

--- Runs `lintel.runTests` with `args` and shows the result; it becomes the last request.
---@param args table `{path, tests?}`
function M.run(args)
  state.last = args
  commands.execute('lintel.runTests', args, function(result, client)
    local root = client.root_dir or vim.uri_to_fname(client.workspace_folders[1].uri)
    local items = commands.quickfix_items(result, root)
    vim.fn.setqflist({}, ' ', { title = ('lintel: %s test'):format(result.language), items = items })
    if #items > 0 and require('lintel').options.open_quickfix then
      vim.cmd('botright cwindow')
    end
    vim.notify(M.verdict(result, args))
    M.refresh_lenses(client)
  end)
end

--- `:LintelTest [cursor|file|last]`.
---@param mode? string
function M.command(mode)
  mode = (mode == nil or mode == '') and 'cursor' or mode
  if mode == 'last' then
    if not state.last then
      return vim.notify('lintel: no test run yet (:LintelTest runs the test at the cursor)', vim.log.levels.WARN)
    end
    return M.run(state.last)
  end
  local client = commands.client()
  local path = commands.buffer_path(0, client)
  if not client or not path then
    return vim.notify('lintel: :LintelTest needs a file of a lintel workspace', vim.log.levels.WARN)
  end
  if mode == 'file' then
    return M.run({ path = path })
  elseif mode ~= 'cursor' then
    return vim.notify(('lintel: :LintelTest cursor|file|last, not %q'):format(mode), vim.log.levels.ERROR)
  end
  local line = vim.api.nvim_win_get_cursor(0)[1] - 1
  M.discover(client, path, function(tests)
    if not tests then
      return
    end
    local test = M.innermost(tests, line)
    if not test then
      return vim.notify('lintel: no test at the cursor (:LintelTest file runs the whole file)', vim.log.levels.WARN)
    end
    M.run({ path = path, tests = { test.id } })
  end)
end

--- Asks again for the lenses of every buffer `client` is attached to (after a run, a refresh, a tests change).
---@param client vim.lsp.Client
---@param bufnr? integer only this buffer
function M.refresh_lenses(client, bufnr)
  if not client:supports_method('textDocument/codeLens') then
    return
  end
  local buffers = bufnr and { bufnr } or vim.tbl_keys(client.attached_buffers or {})
  for _, buf in ipairs(buffers) do
    if vim.api.nvim_buf_is_loaded(buf) then
      vim.lsp.codelens.refresh({ bufnr = buf })
    end
  end
end

--- On attach: the buffer's lenses now, and again on entering it and leaving insert mode.
---@param client vim.lsp.Client
---@param bufnr integer
function M.attach(client, bufnr)
  if not client:supports_method('textDocument/codeLens') then
    return
  end
  local group = vim.api.nvim_create_augroup(('lintel.codelens.%d'):format(bufnr), { clear = true })
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave' }, {
    group = group,
    buffer = bufnr,
    callback = function()
      M.refresh_lenses(client, bufnr)
    end,
  })
  M.refresh_lenses(client, bufnr)
end

--- Client handlers (lsp/lintel.lua): `workspace/codeLens/refresh` and `lintel/testsChanged` refresh the lenses.
M.handlers = {
  ['workspace/codeLens/refresh'] = function(_, _, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    if client then
      M.refresh_lenses(client)
    end
    return vim.NIL
  end,
  ['lintel/testsChanged'] = function(_, params, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    local bufnr = params and params.uri and vim.uri_to_bufnr(params.uri)
    if client and bufnr and vim.api.nvim_buf_is_loaded(bufnr) then
      M.refresh_lenses(client, bufnr)
    end
  end,
}

--- Client commands (lsp/lintel.lua): a lens's `lintel.runTests` runs and shows like :LintelTest.
M.client_commands = {
  ['lintel.runTests'] = function(command)
    M.run((command.arguments or {})[1] or {})
  end,
}

function M.create()
  vim.api.nvim_create_user_command('LintelTest', function(cmd)
    M.command(cmd.fargs[1])
  end, {
    nargs = '?',
    desc = 'lintel: run the test at the cursor, the file, or the last run again',
    complete = function(lead)
      return vim.tbl_filter(function(word)
        return vim.startswith(word, lead)
      end, { 'cursor', 'file', 'last' })
    end,
  })
  vim.api.nvim_create_autocmd('LspAttach', {
    group = vim.api.nvim_create_augroup('lintel.tests', { clear = true }),
    callback = function(event)
      local client = vim.lsp.get_client_by_id(event.data.client_id)
      if client and client.name == 'lintel' then
        M.attach(client, event.buf)
      end
    end,
  })
end

return M
