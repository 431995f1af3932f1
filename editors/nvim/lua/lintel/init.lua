-- lintel for Neovim: registers `lintel serve` with vim.lsp and adds the :Lintel* commands. The server decides
-- everything; this only starts it and maps its workspace/executeCommand results onto quickfix and notifications.
local M = {}

---@class lintel.Options
---@field cmd? string[] server command (default: `lintel serve`, else `python3 -m lintel serve`)
---@field daemon? boolean start the server through the warm lintel (default true; false adds `--no-daemon`)
---@field settings? table lintel settings (camelCase), sent as initializationOptions and as section `lintel`
---@field open_quickfix? boolean open the quickfix window after a run that found something (default true)
---@field fix_on_save? boolean apply every safe fix of the tools (source.fixAll.lintel) before each write (default false)
---@field filetypes? string[] more file types to start the server on (e.g. those of languages declared in lintel.toml)
---@field lsp? vim.lsp.Config anything else to merge into the client configuration

---@type lintel.Options
M.options = { open_quickfix = true, fix_on_save = false, daemon = true }

--- `lintel serve` when `lintel` is on PATH, else the `lintel` module of the `python3` on PATH.
---@return string[]
function M.default_cmd()
  if vim.fn.executable('lintel') == 1 then
    return { 'lintel', 'serve' }
  end
  return { 'python3', '-m', 'lintel', 'serve' }
end

--- The server command in effect (the resolved `vim.lsp.config.lintel.cmd`).
---@return string[]
function M.cmd()
  local cmd = (vim.lsp.config.lintel or {}).cmd
  return type(cmd) == 'table' and cmd or M.default_cmd()
end

---@param opts? lintel.Options
function M.setup(opts)
  opts = opts or {}
  M.options = vim.tbl_extend('force', M.options, opts)
  local config = vim.tbl_deep_extend('force', {}, opts.lsp or {})
  config.cmd = opts.cmd or config.cmd
  if M.options.daemon == false then
    config.cmd = vim.list_extend(vim.deepcopy(config.cmd or M.default_cmd()), { '--no-daemon' })
  end
  if opts.filetypes then
    local defaults = config.filetypes or require('lintel.languages').filetypes
    config.filetypes = vim.list_extend(vim.deepcopy(defaults), opts.filetypes)
  end
  if config.on_init then
    -- A user's on_init replaces the default one, which attaches the declared languages' files: keep both.
    local theirs = type(config.on_init) == 'table' and config.on_init or { config.on_init }
    config.on_init = vim.list_extend({ require('lintel.declared').on_init }, theirs)
  end
  if opts.settings then
    config.init_options = opts.settings
    config.settings = { lintel = opts.settings }
  end
  vim.lsp.config('lintel', config)
  vim.lsp.enable('lintel')
  require('lintel.commands').create()
  require('lintel.tests').create()
  vim.api.nvim_create_user_command('LintelFixAll', function()
    require('lintel.fix').fix_all(0)
  end, { desc = "lintel: apply every safe fix of the tools to this buffer (the tools' own --fix)" })
  if M.options.fix_on_save then
    require('lintel.fix').on_save()
  end
end

return M
