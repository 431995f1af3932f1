-- Runs one scenario of tests/e2e/test_neovim.py inside a real headless Neovim and writes what it saw as JSON.
-- The scenario is a Lua file that receives the helper table `T` as `...` and returns a JSON-able value; the
-- Python test makes every assertion. Environment: LINTEL_NVIM_PLUGIN (the plugin folder),
-- LINTEL_NVIM_SCENARIO (the scenario file), LINTEL_NVIM_ARGS (JSON given to it as `T.args`),
-- LINTEL_NVIM_RESULT (where the JSON report goes).
vim.opt.runtimepath:prepend(vim.env.LINTEL_NVIM_PLUGIN)
vim.o.swapfile = false

local T = { notifications = {}, args = vim.json.decode(table.concat(vim.fn.readfile(vim.env.LINTEL_NVIM_ARGS), '\n')) }

vim.notify = function(message, level)
  table.insert(T.notifications, { message = message, level = level or vim.log.levels.INFO })
end

--- vim.wait that fails the scenario, saying what it waited for.
function T.wait(ms, condition, what)
  if not vim.wait(ms, condition, 50) then
    error(('timed out after %d ms waiting for %s'):format(ms, what), 2)
  end
end

--- Opens a file and waits for the lintel client to attach to it.
function T.edit(path)
  vim.cmd.edit(vim.fn.fnameescape(path))
  T.wait(30000, function()
    return #vim.lsp.get_clients({ name = 'lintel', bufnr = 0 }) > 0
  end, 'lintel to attach to ' .. path)
  return vim.api.nvim_get_current_buf()
end

--- Diagnostics of a buffer (optionally of one source), 1-based lines.
function T.diagnostics(bufnr, source)
  local found = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    if source == nil or d.source == source then
      table.insert(found, { line = d.lnum + 1, col = d.col + 1, code = d.code, source = d.source, message = d.message })
    end
  end
  return found
end

--- Waits until `predicate(diagnostics of source)` holds and returns them.
function T.wait_diagnostics(bufnr, source, predicate, what)
  T.wait(120000, function()
    return predicate(T.diagnostics(bufnr, source))
  end, what or (source .. ' diagnostics'))
  return T.diagnostics(bufnr, source)
end

--- Runs an Ex command that calls a lintel server command and waits for its LintelCommandDone event.
function T.run(command)
  local done
  vim.api.nvim_create_autocmd('User', {
    pattern = 'LintelCommandDone',
    once = true,
    callback = function(event)
      done = event.data
    end,
  })
  vim.cmd(command)
  T.wait(240000, function()
    return done ~= nil
  end, command)
  return done
end

--- The quickfix list with absolute file names.
function T.quickfix()
  local items = {}
  for _, item in ipairs(vim.fn.getqflist()) do
    table.insert(items, {
      file = item.bufnr > 0 and vim.api.nvim_buf_get_name(item.bufnr) or vim.NIL,
      line = item.lnum,
      col = item.col,
      type = item.type,
      text = item.text,
    })
  end
  return { title = vim.fn.getqflist({ title = 1 }).title, items = items }
end

local ok, result = xpcall(function()
  return assert(loadfile(vim.env.LINTEL_NVIM_SCENARIO))(T)
end, debug.traceback)

local report = {
  ok = ok,
  result = ok and result or vim.NIL,
  error = (not ok) and tostring(result) or vim.NIL,
  notifications = T.notifications,
  messages = vim.api.nvim_exec2('messages', { output = true }).output,
}
local file = assert(io.open(vim.env.LINTEL_NVIM_RESULT, 'w'))
file:write(vim.json.encode(report))
file:close()
vim.cmd('qall!')
