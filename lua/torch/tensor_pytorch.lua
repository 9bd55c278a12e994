-- PyTorch's Tensor attributes and small methods that Torch7's API lacked: the properties
-- (x.T, x.mT, x.shape, x.ndim, x.dtype, x.itemsize, x.nbytes...), the dtype/geometry predicates
-- (isFloatingPoint, isSigned, isNonzero...) and the aliases of Torch7 names (nelement,
-- ndimension). The new_* factories, shape helpers and math live in tensor_pytorch_*.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, fail, dt = lib.C, lib.fail, lib.dtype
local describe, check_tensor = types.describe, types.check_tensor
local methods, hooks = torch._tensor_methods, torch._tensor_hooks
local props = hooks.properties

local DTYPE_NAME = { [dt.f32] = 'float32', [dt.f64] = 'float64', [dt.f16] = 'float16',
  [dt.bf16] = 'bfloat16', [dt.i64] = 'int64', [dt.i32] = 'int32', [dt.i16] = 'int16', [dt.i8] = 'int8',
  [dt.u8] = 'uint8', [dt.bool] = 'bool' }
local ITEMSIZE = { [dt.f32] = 4, [dt.f64] = 8, [dt.f16] = 2, [dt.bf16] = 2, [dt.i64] = 8, [dt.i32] = 4,
  [dt.i16] = 2, [dt.i8] = 1, [dt.u8] = 1, [dt.bool] = 1 }
local function is_floating(id) return id == dt.f32 or id == dt.f64 or id == dt.f16 or id == dt.bf16 end

-- Note [PyTorch properties]: a Tocha tensor is a cdata whose methods come first in __index, so
-- PyTorch's attributes that are properties (x.T, x.shape, x.ndim, x.dtype) are properties here too
-- (read with a dot, not called) when no Torch7 method has the name; where Torch7 already has a
-- method of that name (x:device(), x:isCuda(), x:requiresGrad(), x:data()) the method stays and
-- the PyTorch property is not added. dtype is PyTorch's name as a string ('float32'), as
-- torch.getDefaultDtype answers, since Tocha has no torch.float32 objects (Note [dtype names]).

--- x.T (a property): x with its dims reversed (the transpose of a matrix; x itself, as a view, for
--- 0-D and 1-D tensors), a view as in PyTorch.
--- Example: torch.Tensor({{1, 2, 3}}).T:size()
props.T = function(t)
  local n = t:dim()
  if n < 2 then return (t:view(t:size())) end
  local perm = {}
  for i = 1, n do perm[i] = n + 1 - i end
  return (t:permute(perm))
end
local function mT(t, name)
  if t:dim() < 2 then
    fail(name, 'expected a tensor with at least 2 dims (a batch of matrices), got %s', describe(t))
  end
  return (t:transpose(-2, -1))
end
--- x.mT (a property): the batch of matrices x with its last two dims swapped (a view); an error
--- for fewer than 2 dims, as in PyTorch.
--- Example: torch.zeros(4, 2, 3).mT:size()
props.mT = function(t) return (mT(t, 'mT')) end
--- x.H (a property): the conjugate transpose, which is x.T for Tocha's real tensors (PyTorch only
--- allows matrices and 0-D tensors here, and so does Tocha).
--- Example: torch.Tensor({{1, 2, 3}}).H:size()
props.H = function(t)
  if t:dim() > 2 then fail('H', 'expected a tensor with at most 2 dims (use x.mH for batches), got %s', describe(t)) end
  -- PyTorch: "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."
  if t:dim() == 1 then fail('H', 'expected a matrix (or a 0-D tensor), got %s', describe(t)) end
  return (props.T(t))
end
--- x.mH (a property): the conjugate transpose of each matrix of a batch, which is x.mT for real
--- tensors.
--- Example: torch.zeros(4, 2, 3).mH:size()
props.mH = function(t) return (mT(t, 'mH')) end
--- x.shape (a property): x:size(), a LongStorage of the sizes (PyTorch's torch.Size).
--- Example: torch.zeros(2, 3).shape
props.shape = function(t) return (t:size()) end
--- x.ndim (a property): the number of dims, x:dim().
--- Example: torch.zeros(2, 3).ndim
props.ndim = function(t) return t.p.ndim end
--- x.dtype (a property): PyTorch's name of x's element type as a string ('float32', 'int64',
--- 'bool'...), the names torch.getDefaultDtype gives and dtype= options take.
--- Example: torch.LongTensor(2).dtype
props.dtype = function(t) return DTYPE_NAME[tonumber(t.p.dtype)] end
--- x.itemsize (a property): the bytes of one element (x:elementSize()).
--- Example: torch.DoubleTensor(2).itemsize
props.itemsize = function(t) return ITEMSIZE[tonumber(t.p.dtype)] end
--- x.nbytes (a property): x:numel() * x.itemsize, the bytes x's elements take (not its storage).
--- Example: torch.zeros(2, 3).nbytes
props.nbytes = function(t) return tonumber(t.p.numel) * ITEMSIZE[tonumber(t.p.dtype)] end
--- x.isQuantized, x.isSparse, x.isMeta (properties): false, as Tocha's tensors are dense, real
--- and materialized (PyTorch's is_quantized, is_sparse, is_meta attributes).
--- Example: torch.zeros(2).isSparse
props.isQuantized = function() return false end
props.isMeta = function() return false end
if props.isSparse == nil and methods.isSparse == nil then props.isSparse = function() return false end end

--- x:isFloatingPoint(): true for Float, Double, Half and BFloat16 tensors. torch.isFloatingPoint(x)
--- is the same.
--- Example: torch.zeros(2):isFloatingPoint(), torch.LongTensor(2):isFloatingPoint()
function methods.isFloatingPoint(t)
  return is_floating(check_tensor('isFloatingPoint', t, 1).p.dtype)
end
torch.isFloatingPoint = methods.isFloatingPoint
--- x:isComplex(): false; Tocha has no complex dtype (torch.complex gives real tensors with a
--- trailing dim of 2). torch.isComplex(x) is the same.
--- Example: torch.zeros(2):isComplex()
function methods.isComplex(t) check_tensor('isComplex', t, 1) return false end
torch.isComplex = methods.isComplex
--- x:isSigned(): true when x's type holds negative values (all but Byte and Bool tensors).
--- torch.isSigned(x) is the same.
--- Example: torch.ByteTensor(2):isSigned()
function methods.isSigned(t)
  local id = check_tensor('isSigned', t, 1).p.dtype
  return id ~= dt.u8 and id ~= dt.bool
end
torch.isSigned = methods.isSigned
--- x:isConj(), x:isNeg(): false (no lazy conjugate or negative views for real tensors); x:resolveConj()
--- and x:resolveNeg() return x itself. torch.isConj, torch.isNeg, torch.resolveConj, torch.resolveNeg
--- and torch.conj (x itself) are the same.
--- Example: torch.zeros(2):isConj()
function methods.isConj(t) check_tensor('isConj', t, 1) return false end
--- torch.isNeg(x): false (see torch.isConj).
--- Example: torch.zeros(2):isNeg()
function methods.isNeg(t) check_tensor('isNeg', t, 1) return false end
--- torch.resolveConj(x): x itself for real tensors (see torch.isConj).
--- Example: torch.resolveConj(torch.ones(2))
function methods.resolveConj(t) return (check_tensor('resolveConj', t, 1)) end
--- torch.resolveNeg(x): x itself for real tensors (see torch.isConj).
--- Example: torch.resolveNeg(torch.ones(2))
function methods.resolveNeg(t) return (check_tensor('resolveNeg', t, 1)) end
torch.isConj, torch.isNeg, torch.resolveConj, torch.resolveNeg = methods.isConj, methods.isNeg,
  methods.resolveConj, methods.resolveNeg
--- torch.conj(x): x itself for real tensors, as PyTorch's conj of a real tensor (complex values
--- stored as a trailing dim of 2 take torch.complexConj).
--- Example: torch.conj(torch.ones(2))
function methods.conj(t) return (check_tensor('conj', t, 1)) end
if torch.conj == nil then torch.conj = methods.conj end
--- x:isNonzero(): the truth of a one-element tensor (an error for other sizes, as PyTorch's
--- "Boolean value of Tensor with more than one value is ambiguous"). torch.isNonzero(x) is the same.
--- Example: torch.Tensor({0.5}):isNonzero()
function methods.isNonzero(t)
  check_tensor('isNonzero', t, 1)
  if tonumber(t.p.numel) ~= 1 then
    fail('isNonzero', 'expected a tensor with exactly one element, got %s', describe(t))
  end
  local v = t:view(1)[1]  -- a BoolTensor's element is a Lua boolean
  return v ~= 0 and v ~= false
end
torch.isNonzero = methods.isNonzero
--- x:isSameSize(y): true when x and y have the same sizes (Torch7's isSameSizeAs).
--- torch.isSameSize(x, y) is the same.
--- Example: torch.zeros(2, 3):isSameSize(torch.ones(2, 3))
function methods.isSameSize(t, other)
  check_tensor('isSameSize', t, 1)
  return (t:isSameSizeAs(check_tensor('isSameSize', other, 2)))
end
torch.isSameSize = methods.isSameSize
--- x:isCpu(): true when x lives in host memory (PyTorch's is_cpu; x:isCuda() is its opposite).
--- Example: torch.zeros(2):isCpu()
function methods.isCpu(t) return check_tensor('isCpu', t, 1).p.device_type == 0 end
--- torch.isreal(x): a mask of x's shape, all ones (every element of a real tensor is real), of the
--- type torch.isnan gives. x:isreal() is the same.
--- Example: torch.isreal(torch.Tensor({1, 0/0}))
function methods.isreal(t)
  return (torch.isnan(check_tensor('isreal', t, 1)):fill(1))
end
torch.isreal = methods.isreal
--- x:nelement(): the number of elements (Torch7's nElement, PyTorch's numel).
--- Example: torch.zeros(2, 3):nelement()
function methods.nelement(t) return tonumber(check_tensor('nelement', t, 1).p.numel) end
--- x:ndimension(): the number of dims (x:dim()).
--- Example: torch.zeros(2, 3):ndimension()
function methods.ndimension(t) return check_tensor('ndimension', t, 1).p.ndim end
--- x:dataPtr(): the address of x's first element as a number (host tensors only; x:data() is the
--- typed pointer).
--- Example: torch.zeros(2):dataPtr() ~= 0
function methods.dataPtr(t)
  check_tensor('dataPtr', t, 1)
  if t.p.device_type ~= 0 then fail('dataPtr', 'expected a CPU tensor, got %s', describe(t)) end
  local p = C.tocha_tensor_data(t.p)
  return tonumber(ffi.cast('intptr_t', p))
end
--- x:storageType(): the class of x's storage (torch.FloatStorage for a FloatTensor...).
--- Example: torch.LongTensor(2):storageType()
function methods.storageType(t)
  check_tensor('storageType', t, 1)
  return torch[types.storage_name[t.p.dtype]:gsub('^torch%.', '')]
end
--- torch.getDevice(x): x:getDevice(), -1 for a CPU tensor, else its device index.
--- Example: torch.getDevice(torch.zeros(2))
function torch.getDevice(t) return (methods.getDevice(check_tensor('getDevice', t, 1))) end
--- torch.detach(x): x:detach(), a view of x's data cut from the autograd graph.
--- Example: torch.detach(torch.ones(2))
function torch.detach(t) return (methods.detach(check_tensor('detach', t, 1))) end

torch._pytorch_dtype_name, torch._pytorch_is_floating = DTYPE_NAME, is_floating
require 'torch.tensor_pytorch_new'
require 'torch.tensor_pytorch_shape'
require 'torch.tensor_pytorch_math'
require 'torch.tensor_pytorch_forms'
