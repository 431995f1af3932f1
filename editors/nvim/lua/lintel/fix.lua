-- Every safe fix of a buffer at once: the server's `source.fixAll.lintel` code action (the text the tools' own
-- `--fix` leaves), asked for synchronously so that it can run before a write (`fix_on_save`), and `:LintelFixAll`.
local M = {}

local KIND = 'source.fixAll.lintel'

--- Applies lintel's fix-all to `bufnr`; waits at most `timeout_ms` for the server. Returns whether it changed it.
---@param bufnr? integer
---@param timeout_ms? integer
---@return boolean
function M.fix_all(bufnr, timeout_ms)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  timeout_ms = timeout_ms or 5000
  local client = vim.lsp.get_clients({ name = 'lintel', bufnr = bufnr })[1]
  if not client then
    return false
  end
  local params = {
    textDocument = vim.lsp.util.make_text_document_params(bufnr),
    range = { start = { line = 0, character = 0 }, ['end'] = { line = vim.api.nvim_buf_line_count(bufnr), character = 0 } },
    context = { only = { KIND }, diagnostics = {}, triggerKind = 1 },
  }
  local answer = client:request_sync('textDocument/codeAction', params, timeout_ms, bufnr)
  local actions = answer and answer.result or {}
  for _, action in ipairs(actions) do
    if action.kind == KIND then
      if not action.edit then
        local resolved = client:request_sync('codeAction/resolve', action, timeout_ms, bufnr)
        action = resolved and resolved.result or action
      end
      if action.edit then
        vim.lsp.util.apply_workspace_edit(action.edit, client.offset_encoding)
        return true
      end
    end
  end
  return false
end

--- Fix-all before each write of a buffer lintel is attached to.
function M.on_save()
  local group = vim.api.nvim_create_augroup('lintel_fix_on_save', { clear = true })
  vim.api.nvim_create_autocmd('BufWritePre', {
    group = group,
    callback = function(event)
      M.fix_all(event.buf)
    end,
  })
end

return M
