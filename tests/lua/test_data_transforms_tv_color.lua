-- torchvision-style transforms, part 2 (lua/data/transforms_color.lua, transforms_random.lua,
-- transforms_augment.lua): the photometric functions against PyTorch 1.13 values, the random
-- classes by their invariants and distributions (binomial tolerances of 5 standard deviations),
-- seeded reproducibility, AutoAugment & co., and random transforms in a DataLoader with workers.
-- The reference values are PyTorch 1.13's, computed with torch ops that reproduce torchvision
-- 0.14's tensor code (functional_tensor.py: _blend, _rgb2hsv/_hsv2rgb, _blurred_degenerate_image,
-- _scale_channel, _get_gaussian_kernel1d + conv2d; posterize/equalize of floats as
-- torchvision.transforms.v2), torchvision itself not being installed.
local data = require 'data'
local T = data.transforms
local Fn = T.functional
local tester = torch.Tester()
local tests = torch.TestSuite()

local imgF, imgB = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/tv_images.lua')

local F, B = imgF(3, 5, 6), imgB(3, 5, 6)

-- PyTorch 1.13 values (see the header), flattened, with their sizes.
local REF = {
  gray = { size = { 1, 5, 6 }, 0.4391875, 0.6266688, 0.1904625, 0.3779438, 0.4443, 0.6317813, 0.2529562,
    0.4404375, 0.5067938, 0.694275, 0.564175, 0.7516563, 0.5692875, 0.4391875, 0.6266688, 0.1904625, 0.3779438,
    0.4443, 0.6891626, 0.2529562, 0.4404375, 0.5067938, 0.694275, 0.564175, 0.5029312, 0.5692875, 0.4391875,
    0.6266688, 0.1904625, 0.3779438, },
  gray_byte = { size = { 1, 5, 6 }, 74, 91, 108, 125, 142, 129, 111, 133, 125, 147, 169, 191, 118, 145, 172,
    199, 76, 103, 155, 187, 69, 101, 133, 89, 192, 79, 116, 77, 114, 121, },
  brightness = { size = { 3, 5, 6 }, 0, 0.24375, 0.4875, 0.73125, 0.975, 1, 0.56875, 0.8125, 1, 1, 0.1625,
    0.40625, 1, 0, 0.24375, 0.4875, 0.73125, 0.975, 0.325, 0.56875, 0.8125, 1, 1, 0.1625, 0.89375, 1, 0,
    0.24375, 0.4875, 0.73125, 0.89375, 1, 0, 0.24375, 0.4875, 0.73125, 0.08125, 0.325, 0.56875, 0.8125, 1, 1,
    0.65, 0.89375, 1, 0, 0.24375, 0.4875, 1, 0.08125, 0.325, 0.56875, 0.8125, 1, 0.40625, 0.65, 0.89375, 1, 0,
    0.24375, 0.40625, 0.65, 0.89375, 1, 0, 0.24375, 0.975, 1, 0.08125, 0.325, 0.56875, 0.8125, 0.1625, 0.40625,
    0.65, 0.89375, 1, 0, 0.73125, 0.975, 1, 0.08125, 0.325, 0.56875, 1, 0.1625, 0.40625, 0.65, 0.89375, 1, },
  brightness_byte = { size = { 3, 5, 6 }, 0, 22, 44, 66, 88, 110, 48, 76, 105, 133, 162, 191, 96, 131, 166, 201,
    236, 255, 144, 185, 227, 255, 255, 19, 192, 240, 255, 3, 52, 100, 118, 140, 162, 184, 206, 228, 166, 195,
    223, 252, 255, 255, 214, 249, 255, 255, 22, 57, 255, 255, 13, 54, 96, 137, 255, 26, 74, 122, 170, 218, 236,
    255, 255, 255, 255, 14, 255, 255, 9, 37, 66, 94, 0, 35, 70, 105, 140, 175, 48, 89, 131, 172, 214, 255, 96,
    144, 192, 240, 255, 3, },
  contrast = { size = { 3, 5, 6 }, 0.1923036, 0.3048036, 0.4173036, 0.5298036, 0.6423036, 0.7548036, 0.4548036,
    0.5673036, 0.6798036, 0.7923036, 0.2673036, 0.3798036, 0.7173036, 0.1923036, 0.3048036, 0.4173036,
    0.5298036, 0.6423036, 0.3423036, 0.4548036, 0.5673036, 0.6798036, 0.7923036, 0.2673036, 0.6048036,
    0.7173036, 0.1923036, 0.3048036, 0.4173036, 0.5298036, 0.6048036, 0.7173036, 0.1923036, 0.3048036,
    0.4173036, 0.5298036, 0.2298036, 0.3423036, 0.4548036, 0.5673036, 0.6798036, 0.7923036, 0.4923036,
    0.6048036, 0.7173036, 0.1923036, 0.3048036, 0.4173036, 0.7548036, 0.2298036, 0.3423036, 0.4548036,
    0.5673036, 0.6798036, 0.3798036, 0.4923036, 0.6048036, 0.7173036, 0.1923036, 0.3048036, 0.3798036,
    0.4923036, 0.6048036, 0.7173036, 0.1923036, 0.3048036, 0.6423036, 0.7548036, 0.2298036, 0.3423036,
    0.4548036, 0.5673036, 0.2673036, 0.3798036, 0.4923036, 0.6048036, 0.7173036, 0.1923036, 0.5298036,
    0.6423036, 0.7548036, 0.2298036, 0.3423036, 0.4548036, 0.7923036, 0.2673036, 0.3798036, 0.4923036,
    0.6048036, 0.7173036, },
  contrast_byte = { size = { 3, 5, 6 }, 0, 0, 0, 0, 27, 56, 0, 11, 49, 86, 124, 161, 37, 83, 129, 175, 220, 255,
    100, 154, 209, 255, 255, 0, 163, 226, 255, 0, 0, 42, 66, 95, 124, 152, 181, 210, 129, 166, 203, 241, 255,
    255, 192, 237, 255, 255, 0, 0, 254, 255, 0, 0, 37, 91, 255, 0, 8, 71, 134, 197, 220, 249, 255, 255, 255, 0,
    255, 255, 0, 0, 0, 35, 0, 0, 3, 49, 95, 141, 0, 28, 83, 137, 192, 246, 37, 100, 163, 226, 255, 0, },
  saturation = { size = { 3, 5, 6 }, 0, 0, 0.5041763, 0.6916894, 0.9639901, 1, 0.5666807, 0.7541938, 1, 1, 0,
    0.005090594, 1, 0, 0, 0.5041763, 0.6916894, 0.9639901, 0, 0.5666807, 0.7541938, 1, 1, 0, 0.8166982, 1, 0, 0,
    0.5041763, 0.6916894, 0.8613188, 1, 0, 0.05418941, 0.32649, 0.5140032, 0, 0.1166938, 0.3889944, 0.5765074,
    0.9863275, 1, 0.4514988, 0.8613188, 1, 0, 0.05418941, 0.32649, 1, 0, 0.1166938, 0.3889944, 0.5765074,
    0.9863275, 0.1791981, 0.4514988, 0.8613188, 1, 0, 0.05418941, 0.2238187, 0.4113319, 1, 1, 0, 0, 1, 1, 0, 0,
    0.3488275, 0.5363406, 0, 0.2238187, 0.4113319, 1, 1, 0, 0.4738362, 1, 1, 0, 0, 0.3488275, 1, 0, 0.2238187,
    0.4113319, 1, 1, },
  saturation_byte = { size = { 3, 5, 6 }, 44, 61, 78, 95, 112, 111, 81, 103, 107, 129, 151, 173, 100, 127, 154,
    181, 118, 145, 137, 169, 111, 143, 175, 59, 174, 121, 158, 47, 84, 103, 80, 97, 114, 131, 148, 147, 117,
    139, 143, 165, 187, 209, 136, 163, 190, 217, 52, 79, 173, 205, 45, 77, 109, 95, 210, 55, 92, 83, 120, 139,
    117, 134, 151, 168, 185, 81, 154, 176, 77, 99, 121, 143, 70, 97, 124, 151, 88, 115, 107, 139, 81, 113, 145,
    132, 144, 91, 128, 120, 157, 73, },
  hue = { size = { 3, 5, 6 }, 0, 0.1875, 0.6875, 0.875, 0.2249999, 0.4124999, 0.75, 0.9375, 0.2874999,
    0.4749999, 0.125, 0.3125, 0.3499999, 0, 0.1875, 0.6875, 0.875, 0.2249999, 0.25, 0.75, 0.9375, 0.2874999,
    0.4749999, 0.125, 1, 0.3499999, 0, 0.1875, 0.6875, 0.875, 0.2375001, 0.4250001, 0, 0.1875, 0.75, 0.9375,
    0.06249999, 0.25, 0.8125, 1, 0.3625001, 0.5500001, 0.875, 0.2375001, 0.4250001, 0, 0.1875, 0.75, 0.4875001,
    0.06249999, 0.25, 0.8125, 1, 0.3625001, 0.3125, 0.875, 0.2375001, 0.4250001, 0, 0.1875, 0.6875, 0.875,
    0.1750002, 0.3625002, 0, 0.1875, 0.2375001, 0.4250002, 0.0625, 0.25, 0.8125, 1, 0.125, 0.6875, 0.875,
    0.1750002, 0.3625002, 0, 0.9375, 0.2375001, 0.4250002, 0.0625, 0.25, 0.8125, 0.4875002, 0.125, 0.6875,
    0.875, 0.1750002, 0.3625002, },
  hue_byte = { size = { 3, 5, 6 }, 54, 71, 88, 105, 122, 176, 91, 113, 172, 194, 216, 238, 165, 192, 219, 246,
    16, 43, 202, 234, 9, 42, 73, 69, 239, 19, 56, 57, 94, 168, 182, 199, 216, 233, 250, 11, 219, 241, 7, 28, 51,
    72, 0, 27, 53, 80, 75, 102, 36, 68, 68, 100, 132, 197, 73, 78, 115, 185, 222, 2, 0, 16, 33, 50, 68, 52, 37,
    58, 48, 70, 92, 114, 41, 68, 95, 122, 182, 209, 78, 110, 175, 207, 239, 15, 115, 185, 222, 3, 40, 44, },
  gamma = { size = { 3, 5, 6 }, 0, 0.3407953, 0.5536236, 0.7353235, 0.8993642, 1, 0.6167048, 0.7916054,
    0.9511939, 1, 0.2565841, 0.4872902, 1, 0, 0.3407953, 0.5536236, 0.7353235, 0.8993642, 0.4168221, 0.6167048,
    0.7916054, 0.9511939, 1, 0.2565841, 0.8462206, 1, 0, 0.3407953, 0.5536236, 0.7353235, 0.8462206, 1, 0,
    0.3407953, 0.5536236, 0.7353235, 0.157946, 0.4168221, 0.6167048, 0.7916054, 0.9511939, 1, 0.6771294,
    0.8462206, 1, 0, 0.3407953, 0.5536236, 1, 0.157946, 0.4168221, 0.6167048, 0.7916054, 0.9511939, 0.4872902,
    0.6771294, 0.8462206, 1, 0, 0.3407953, 0.4872902, 0.6771294, 0.8462206, 1, 0, 0.3407953, 0.8993642, 1,
    0.157946, 0.4168221, 0.6167048, 0.7916054, 0.2565841, 0.4872902, 0.6771294, 0.8462206, 1, 0, 0.7353235,
    0.8993642, 1, 0.157946, 0.4168221, 0.6167048, 1, 0.2565841, 0.4872902, 0.6771294, 0.8462206, 1, },
  gamma_byte = { size = { 3, 5, 6 }, 0, 1, 6, 14, 23, 35, 7, 18, 32, 50, 70, 94, 27, 48, 74, 104, 139, 178, 57,
    90, 129, 175, 227, 1, 96, 143, 199, 0, 9, 29, 40, 54, 70, 89, 109, 131, 74, 98, 126, 156, 189, 226, 116,
    153, 194, 239, 1, 10, 168, 219, 0, 9, 27, 52, 227, 2, 17, 42, 77, 120, 139, 163, 189, 217, 247, 0, 194, 231,
    0, 5, 14, 26, 0, 4, 15, 32, 54, 81, 7, 24, 48, 79, 116, 160, 27, 57, 96, 143, 199, 0, },
  sharpness = { size = { 3, 5, 6 }, 0, 0.1875, 0.375, 0.5625, 0.75, 0.9375, 0.4375, 0.7884616, 1, 1, 0, 0.3125,
    0.875, 0, 0, 0.2115384, 0.5625, 0.75, 0.25, 0.4375, 0.7884616, 1, 1, 0.125, 0.6875, 0.875, 0, 0.1875, 0.375,
    0.5625, 0.6875, 0.875, 0, 0.1875, 0.375, 0.5625, 0.0625, 0.08653846, 0.4375, 0.7884616, 1, 1, 0.5,
    0.8509615, 1, 0, 0, 0.375, 0.9375, 0, 0.08653846, 0.4375, 0.7884616, 0.8125, 0.3125, 0.5, 0.6875, 0.875, 0,
    0.1875, 0.3125, 0.5, 0.6875, 0.875, 0, 0.1875, 0.75, 1, 0, 0.08653846, 0.4375, 0.625, 0.125, 0.1490384, 0.5,
    0.8509615, 1, 0, 0.5625, 0.9134616, 1, 0, 0.08653846, 0.4375, 1, 0.125, 0.3125, 0.5, 0.6875, 0.875, },
  sharpness_byte = { size = { 3, 5, 6 }, 0, 17, 34, 51, 68, 85, 37, 59, 81, 103, 125, 147, 74, 101, 128, 155,
    168, 209, 111, 143, 161, 179, 183, 15, 148, 185, 222, 3, 40, 77, 91, 108, 125, 142, 159, 176, 128, 150, 172,
    180, 188, 238, 165, 178, 191, 190, 72, 44, 202, 192, 65, 69, 88, 106, 239, 20, 57, 94, 131, 168, 182, 199,
    216, 233, 250, 11, 219, 185, 62, 70, 78, 73, 0, 54, 68, 81, 108, 135, 37, 69, 101, 133, 151, 197, 74, 111,
    148, 185, 222, 3, },
  posterize_byte = { size = { 3, 5, 6 }, 0, 0, 32, 32, 64, 64, 32, 32, 64, 96, 96, 128, 64, 96, 128, 128, 160,
    192, 96, 128, 160, 192, 224, 0, 128, 160, 192, 0, 32, 64, 64, 96, 96, 128, 128, 160, 128, 128, 160, 192,
    192, 224, 160, 192, 192, 224, 0, 32, 192, 224, 0, 32, 64, 96, 224, 0, 32, 64, 128, 160, 160, 192, 192, 224,
    224, 0, 192, 224, 0, 0, 32, 64, 0, 0, 32, 64, 96, 128, 32, 64, 96, 128, 160, 192, 64, 96, 128, 160, 192, 0, },
  posterize = { size = { 3, 5, 6 }, 0, 0, 0.25, 0.5, 0.75, 0.75, 0.25, 0.5, 0.75, 0.75, 0, 0.25, 0.75, 0, 0,
    0.25, 0.5, 0.75, 0.25, 0.25, 0.5, 0.75, 0.75, 0, 0.5, 0.75, 0, 0, 0.25, 0.5, 0.5, 0.75, 0, 0, 0.25, 0.5, 0,
    0.25, 0.25, 0.5, 0.75, 0.75, 0.5, 0.5, 0.75, 0, 0, 0.25, 0.75, 0, 0.25, 0.25, 0.5, 0.75, 0.25, 0.5, 0.5,
    0.75, 0, 0, 0.25, 0.5, 0.5, 0.75, 0, 0, 0.75, 0.75, 0, 0.25, 0.25, 0.5, 0, 0.25, 0.5, 0.5, 0.75, 0, 0.5,
    0.75, 0.75, 0, 0.25, 0.25, 0.75, 0, 0.25, 0.5, 0.5, 0.75, },
  solarize = { size = { 3, 5, 6 }, 0, 0.1875, 0.375, 0.4375, 0.25, 0.0625, 0.4375, 0.375, 0.1875, 0, 0.125,
    0.3125, 0.125, 0, 0.1875, 0.375, 0.4375, 0.25, 0.25, 0.4375, 0.375, 0.1875, 0, 0.125, 0.3125, 0.125, 0,
    0.1875, 0.375, 0.4375, 0.3125, 0.125, 0, 0.1875, 0.375, 0.4375, 0.0625, 0.25, 0.4375, 0.375, 0.1875, 0, 0.5,
    0.3125, 0.125, 0, 0.1875, 0.375, 0.0625, 0.0625, 0.25, 0.4375, 0.375, 0.1875, 0.3125, 0.5, 0.3125, 0.125, 0,
    0.1875, 0.3125, 0.5, 0.3125, 0.125, 0, 0.1875, 0.25, 0.0625, 0.0625, 0.25, 0.4375, 0.375, 0.125, 0.3125,
    0.5, 0.3125, 0.125, 0, 0.4375, 0.25, 0.0625, 0.0625, 0.25, 0.4375, 0, 0.125, 0.3125, 0.5, 0.3125, 0.125, },
  solarize_byte = { size = { 3, 5, 6 }, 0, 17, 34, 51, 68, 85, 37, 59, 81, 103, 125, 108, 74, 101, 127, 100, 73,
    46, 111, 112, 80, 48, 16, 15, 107, 70, 33, 3, 40, 77, 91, 108, 125, 113, 96, 79, 127, 105, 83, 61, 39, 17,
    90, 63, 36, 9, 17, 44, 53, 21, 10, 42, 74, 106, 16, 20, 57, 94, 124, 87, 73, 56, 39, 22, 5, 11, 36, 14, 7,
    29, 51, 73, 0, 27, 54, 81, 108, 120, 37, 69, 101, 122, 90, 58, 74, 111, 107, 70, 33, 3, },
  autocontrast = { size = { 3, 5, 6 }, 0, 0.1875, 0.375, 0.5625, 0.75, 0.9375, 0.4375, 0.625, 0.8125, 1, 0.125,
    0.3125, 0.875, 0, 0.1875, 0.375, 0.5625, 0.75, 0.25, 0.4375, 0.625, 0.8125, 1, 0.125, 0.6875, 0.875, 0,
    0.1875, 0.375, 0.5625, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3,
    0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3, 0.3125, 0.5, 0.6875, 0.875, 0, 0.1875,
    0.75, 0.9375, 0.0625, 0.25, 0.4375, 0.625, 0.125, 0.3125, 0.5, 0.6875, 0.875, 0, 0.5625, 0.75, 0.9375,
    0.0625, 0.25, 0.4375, 1, 0.125, 0.3125, 0.5, 0.6875, 0.875, },
  autocontrast_byte = { size = { 3, 5, 6 }, 0, 17, 36, 53, 72, 90, 38, 62, 85, 109, 132, 156, 79, 107, 137, 165,
    195, 222, 117, 152, 186, 220, 255, 15, 158, 197, 237, 2, 42, 81, 86, 105, 123, 142, 159, 179, 127, 151, 175,
    198, 222, 246, 166, 196, 224, 255, 6, 36, 207, 242, 0, 34, 69, 103, 246, 10, 49, 90, 129, 170, 185, 201,
    220, 236, 255, 10, 222, 244, 6, 28, 51, 73, 0, 26, 55, 81, 110, 136, 36, 69, 102, 134, 167, 199, 75, 112,
    150, 187, 226, 2, },
  equalize_byte = { size = { 3, 5, 6 }, 0, 17, 34, 51, 68, 85, 37, 59, 81, 103, 125, 147, 74, 101, 128, 155,
    182, 209, 111, 143, 175, 207, 239, 15, 148, 185, 222, 3, 40, 77, 91, 108, 125, 142, 159, 176, 128, 150, 172,
    194, 216, 238, 165, 192, 219, 246, 17, 44, 202, 234, 10, 42, 74, 106, 239, 20, 57, 94, 131, 168, 182, 199,
    216, 233, 250, 11, 219, 241, 7, 29, 51, 73, 0, 27, 54, 81, 108, 135, 37, 69, 101, 133, 165, 197, 74, 111,
    148, 185, 222, 3, },
  equalize = { size = { 3, 5, 6 }, 0, 0.1843137, 0.372549, 0.5607843, 0.7490196, 0.9372549, 0.4352941,
    0.6235294, 0.8117647, 1, 0.1215686, 0.3098039, 0.8745098, 0, 0.1843137, 0.372549, 0.5607843, 0.7490196,
    0.2470588, 0.4352941, 0.6235294, 0.8117647, 1, 0.1215686, 0.6862745, 0.8745098, 0, 0.1843137, 0.372549,
    0.5607843, 0.6862745, 0.8745098, 0, 0.1843137, 0.372549, 0.5607843, 0.05882353, 0.2470588, 0.4352941,
    0.6235294, 0.8117647, 1, 0.4980392, 0.6862745, 0.8745098, 0, 0.1843137, 0.372549, 0.9372549, 0.05882353,
    0.2470588, 0.4352941, 0.6235294, 0.8117647, 0.3098039, 0.4980392, 0.6862745, 0.8745098, 0, 0.1843137,
    0.3098039, 0.4980392, 0.6862745, 0.8745098, 0, 0.1843137, 0.7490196, 0.9372549, 0.05882353, 0.2470588,
    0.4352941, 0.6235294, 0.1215686, 0.3098039, 0.4980392, 0.6862745, 0.8745098, 0, 0.5607843, 0.7490196,
    0.9372549, 0.05882353, 0.2470588, 0.4352941, 1, 0.1215686, 0.3098039, 0.4980392, 0.6862745, 0.8745098, },
  blur = { size = { 3, 5, 6 }, 0.3643422, 0.4287309, 0.5406322, 0.6048903, 0.585876, 0.5705108, 0.4259925,
    0.4648005, 0.5328194, 0.563983, 0.5289061, 0.5061954, 0.4121196, 0.4206349, 0.4671806, 0.5238227, 0.5521331,
    0.551064, 0.4489361, 0.447867, 0.4761774, 0.5328194, 0.5793652, 0.5878804, 0.5386161, 0.5159054, 0.4808284,
    0.4902481, 0.5183901, 0.5316173, 0.4489932, 0.4262825, 0.3912056, 0.4441131, 0.5520091, 0.6163978,
    0.4281658, 0.4309336, 0.4375, 0.4761774, 0.5482016, 0.5908464, 0.4884925, 0.4798073, 0.4607269, 0.436017,
    0.4568136, 0.4737092, 0.4746197, 0.4613909, 0.4463158, 0.4375, 0.4440665, 0.4468343, 0.4330056, 0.4462328,
    0.4743747, 0.4837945, 0.4487175, 0.4260069, 0.5898665, 0.5745012, 0.5079938, 0.4376594, 0.3590947, 0.336384,
    0.5563046, 0.533594, 0.4767731, 0.4463158, 0.427133, 0.426064, 0.4906657, 0.4934336, 0.5, 0.4911843,
    0.4761091, 0.4628804, 0.5509926, 0.5423074, 0.523227, 0.4767731, 0.4576927, 0.4490075, 0.5819311, 0.5469584,
    0.4920063, 0.4576097, 0.4897569, 0.5106578, },
  blur_byte = { size = { 3, 5, 6 }, 23, 35, 54, 73, 92, 103, 46, 59, 81, 103, 125, 138, 85, 101, 128, 155, 171,
    167, 124, 143, 164, 165, 154, 118, 147, 167, 171, 120, 101, 81, 114, 126, 145, 164, 183, 194, 137, 150, 172,
    183, 174, 175, 176, 181, 177, 161, 102, 86, 193, 160, 95, 84, 85, 93, 176, 118, 60, 72, 107, 127, 205, 194,
    151, 148, 135, 91, 175, 156, 92, 83, 93, 86, 65, 69, 65, 81, 108, 124, 50, 69, 101, 133, 154, 152, 73, 93,
    128, 163, 167, 132, },
  kernel5 = { size = { 5 }, 0.1200784, 0.2338807, 0.2920817, 0.2338807, 0.1200784, },
  autoaug_shearx = { size = { 3, 5, 6 }, 0, 0.1875, 0.375, 0.5625, 0.75, 0.9375, 0.4375, 0.625, 0.8125, 1,
    0.125, 0.3125, 0, 0.875, 0, 0.1875, 0.375, 0.5625, 0, 0.25, 0.4375, 0.625, 0.8125, 1, 0, 0.6875, 0.875, 0,
    0.1875, 0.375, 0.6875, 0.875, 0, 0.1875, 0.375, 0.5625, 0.0625, 0.25, 0.4375, 0.625, 0.8125, 1, 0, 0.5,
    0.6875, 0.875, 0, 0.1875, 0, 0.9375, 0.0625, 0.25, 0.4375, 0.625, 0, 0.3125, 0.5, 0.6875, 0.875, 0, 0.3125,
    0.5, 0.6875, 0.875, 0, 0.1875, 0.75, 0.9375, 0.0625, 0.25, 0.4375, 0.625, 0, 0.125, 0.3125, 0.5, 0.6875,
    0.875, 0, 0.5625, 0.75, 0.9375, 0.0625, 0.25, 0, 1, 0.125, 0.3125, 0.5, 0.6875, },
  autoaug_translatey_byte = { size = { 3, 5, 6 }, 7, 7, 7, 7, 7, 7, 0, 17, 34, 51, 68, 85, 37, 59, 81, 103, 125,
    147, 74, 101, 128, 155, 182, 209, 111, 143, 175, 207, 239, 15, 7, 7, 7, 7, 7, 7, 91, 108, 125, 142, 159,
    176, 128, 150, 172, 194, 216, 238, 165, 192, 219, 246, 17, 44, 202, 234, 10, 42, 74, 106, 7, 7, 7, 7, 7, 7,
    182, 199, 216, 233, 250, 11, 219, 241, 7, 29, 51, 73, 0, 27, 54, 81, 108, 135, 37, 69, 101, 133, 165, 197, },
  posterize_bins10 = { size = { 10 }, 8, 8, 7, 7, 6, 6, 5, 5, 4, 4, },
  posterize_bins31_wide = { size = { 31 }, 8, 8, 8, 7, 7, 7, 7, 7, 6, 6, 6, 6, 6, 5, 5, 5, 5, 5, 4, 4, 4, 4, 4,
    3, 3, 3, 3, 3, 2, 2, 2, },
  translate_bins = { size = { 10 }, 0, 0.3021148, 0.6042296, 0.9063444, 1.208459, 1.510574, 1.812689, 2.114804,
    2.416919, 2.719033, },
}

local function ref(name)
  local r = REF[name]
  local t = torch.DoubleTensor(#r)
  for i = 1, #r do t[i] = r[i] end
  return t:view(torch.LongStorage(r.size))
end

-- got matches REF[name] in size and within tol (0 for byte results).
local function check(name, got, tol)
  local want = ref(name)
  tester:assertTableEq(got:size():totable(), want:size():totable(), name .. ': size')
  local diff = (got:double() - want):abs():max()
  tester:assert(diff <= (tol or 1e-5), string.format('%s: max difference %g', name, diff))
end

local function fails(pattern, f)
  local ok, err = pcall(f)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, 'error "' .. tostring(err) .. '" lacks ' .. pattern)
end

function tests.adjustMatchesPyTorch()
  check('gray', Fn.rgbToGrayscale(F))
  check('gray_byte', Fn.rgbToGrayscale(B), 0)
  check('brightness', Fn.adjustBrightness(F, 1.3))
  check('brightness_byte', Fn.adjustBrightness(B, 1.3), 0)
  check('contrast', Fn.adjustContrast(F, 0.6))
  check('contrast_byte', Fn.adjustContrast(B, 1.7), 0)
  check('saturation', Fn.adjustSaturation(F, 1.7))
  check('saturation_byte', Fn.adjustSaturation(B, 0.4), 0)
  check('hue', Fn.adjustHue(F, 0.2))
  check('hue_byte', Fn.adjustHue(B, -0.3), 0)
  check('gamma', Fn.adjustGamma(F, 0.7, 1.1))
  check('gamma_byte', Fn.adjustGamma(B, 1.8), 0)
  check('sharpness', Fn.adjustSharpness(F, 2))
  check('sharpness_byte', Fn.adjustSharpness(B, 0.3), 0)
end

function tests.tonesMatchPyTorch()
  check('posterize_byte', Fn.posterize(B, 3), 0)
  check('posterize', Fn.posterize(F, 2))
  check('solarize', Fn.solarize(F, 0.5))
  check('solarize_byte', Fn.solarize(B, 128), 0)
  local A = F * 0.5 + 0.2
  A[2]:fill(0.3)  -- a flat channel is kept
  check('autocontrast', Fn.autocontrast(A))
  check('autocontrast_byte', Fn.autocontrast(torch.floor(B:float() / 2):add(10):byte()), 0)
  check('equalize_byte', Fn.equalize(B), 0)
  check('equalize', Fn.equalize(F))
  check('blur', Fn.gaussianBlur(F, { 5, 3 }, { 1.2, 0.8 }))
  check('blur_byte', Fn.gaussianBlur(B, 3, 0.7), 0)
  check('kernel5', Fn.gaussianKernel(5, 1.5), 1e-7)
end

function tests.closedForms()
  tester:assertTensorEq(Fn.adjustBrightness(F, 1), F, 1e-7)
  tester:assertTensorEq(Fn.adjustBrightness(F, 0), torch.zeros(3, 5, 6), 0)
  tester:assertTensorEq(Fn.adjustSaturation(F, 0), Fn.rgbToGrayscale(F, 3), 1e-6)
  tester:assertTensorEq(Fn.adjustContrast(F, 1), F, 1e-6)
  tester:assertTensorEq(Fn.adjustHue(F, 0), F, 1e-6)  -- the HSV round trip
  tester:assertTensorEq(Fn.adjustHue(Fn.adjustHue(F, 0.3), -0.3), F, 1e-5)
  tester:assertTensorEq(Fn.invert(Fn.invert(B)), B, 0)
  tester:assertTensorEq(Fn.invert(F), 1 - F, 1e-7)
  tester:assertTensorEq(Fn.adjustGamma(F, 1), F, 1e-6)
  tester:assertTensorEq(Fn.adjustSharpness(F, 1), F, 1e-6)
  local sol = Fn.solarize(F, 0.3)
  for c = 1, 3 do for i = 1, 5 do for j = 1, 6 do
    local v = F[c][i][j]
    tester:asserteq(sol[c][i][j], v >= 0.3 and 1 - v or v)
  end end end
  tester:assertTensorEq(Fn.posterize(B, 8), B, 0)
  -- luma of pure red, green and blue
  local rgb = torch.eye(3):view(3, 3, 1)
  tester:assertTensorEq(Fn.rgbToGrayscale(rgb):view(3), torch.FloatTensor{ 0.2989, 0.587, 0.114 }, 1e-6)
  -- a Gaussian blur of a constant image is that constant; its kernel sums to 1
  local flat = torch.FloatTensor(2, 6, 6):fill(0.3)
  tester:assertTensorEq(Fn.gaussianBlur(flat, 5), flat, 1e-6)
  tester:assertalmosteq(Fn.gaussianKernel(7, 2):sum(), 1, 1e-12)
  -- equalized bytes have a roughly flat histogram: their cumulative counts grow evenly
  local gen = torch.Generator()
  torch.manualSeed(gen, 3)
  local skew = torch.pow(torch.rand(gen, 1, 64, 64), 3):mul(255):byte()
  local eq = Fn.equalize(skew):double()
  tester:assertalmosteq(eq:mean(), 127.5, 10)
  tester:assert(eq:gt(128):double():mean() > 0.4, 'half the pixels end above the middle')
end

function tests.batchesMatchSingleImages()
  local batch = torch.cat({ F:view(1, 3, 5, 6), F:index(1, torch.LongTensor{ 3, 1, 2 }):view(1, 3, 5, 6) }, 1)
  local second = batch[2]:clone()
  for _, f in ipairs({
    function(x) return Fn.adjustHue(x, 0.1) end, function(x) return Fn.adjustContrast(x, 0.5) end,
    function(x) return Fn.adjustSharpness(x, 3) end, function(x) return Fn.autocontrast(x) end,
    function(x) return Fn.equalize(x) end, function(x) return Fn.gaussianBlur(x, 3, 1) end,
    function(x) return Fn.rgbToGrayscale(x) end }) do
    local out = f(batch)
    tester:assertTensorEq(out[1], f(F), 1e-6)
    tester:assertTensorEq(out[2], f(second), 1e-6)
  end
end

function tests.augmentOpsMatchPyTorch()
  local A = T._augment
  check('autoaug_shearx', A.apply_op(F, 'ShearX', -0.3, 'nearest', nil))
  check('autoaug_translatey_byte', A.apply_op(B, 'TranslateY', A.magnitude('TranslateY', 7, 10, 6, 5, false), 'nearest',
    { 7, 7, 7 }), 0)
  local bins10, bins31, translate = {}, {}, {}
  for k = 0, 9 do bins10[k + 1] = A.magnitude('Posterize', k, 10, 6, 5, false) end
  for k = 0, 30 do bins31[k + 1] = A.magnitude('Posterize', k, 31, 6, 5, true) end
  for k = 0, 9 do translate[k + 1] = A.magnitude('TranslateX', k, 10, 6, 5, false) end
  check('posterize_bins10', torch.DoubleTensor(bins10), 0)
  check('posterize_bins31_wide', torch.DoubleTensor(bins31), 0)
  check('translate_bins', torch.DoubleTensor(translate), 1e-6)
  -- Solarize's bins are a fraction of the range: bin 0 changes nothing, the last inverts all
  tester:assertTensorEq(A.apply_op(B, 'Solarize', A.magnitude('Solarize', 0, 10, 6, 5, false), 'nearest'), B, 0)
  tester:assertTensorEq(A.apply_op(F, 'Solarize', A.magnitude('Solarize', 9, 10, 6, 5, false), 'nearest'), 1 - F, 1e-7)
end

function tests.errorsNameTheFunction()
  fails('[adjustHue] hue factor must be a number in [-0.5, 0.5]', function() Fn.adjustHue(F, 0.7) end)
  fails('[adjustBrightness] brightness factor must be a non-negative', function() Fn.adjustBrightness(F, -1) end)
  fails('[adjustContrast] expected an image with 1 or 3 channels, got 2',
    function() Fn.adjustContrast(torch.rand(2, 3, 3), 1) end)
  fails('[posterize] bits must be an integer in 0..8', function() Fn.posterize(B, 9) end)
  fails('[solarize] threshold must be a number at most 1', function() Fn.solarize(F, 128) end)
  fails('[gaussianBlur] kernel sizes must be odd', function() Fn.gaussianBlur(F, 4) end)
  fails('[gaussianBlur] sigma must be a positive', function() Fn.gaussianBlur(F, 3, 0) end)
  fails('[rgbToGrayscale] numOutputChannels must be 1 or 3', function() Fn.rgbToGrayscale(F, 2) end)
  fails('[equalize] expected an image tensor', function() Fn.equalize('img') end)
end

function tests.cudaMatchesCpu()
  if not torch.cuda or not torch.cuda.isAvailable() then return end
  local g, gb = F:cuda(), B:cuda()
  for _, f in ipairs({
    function(x) return Fn.adjustHue(x, 0.2) end, function(x) return Fn.adjustContrast(x, 0.6) end,
    function(x) return Fn.adjustSharpness(x, 2) end, function(x) return Fn.autocontrast(x) end,
    function(x) return Fn.gaussianBlur(x, { 5, 3 }, { 1.2, 0.8 }) end, function(x) return Fn.posterize(x, 2) end,
    function(x) return Fn.equalize(x) end }) do
    tester:assertTensorEq(f(g):float(), f(F), 1e-5)
  end
  -- byte images stay bytes on the GPU: every function computes in float on the image's device.
  -- Integer-only ops must match exactly; a float computation truncated back to bytes may land one
  -- level apart where a sum (a mean, a convolution) is ordered differently on the GPU.
  for _, c in ipairs({
    { 'equalize', 0, function(x) return Fn.equalize(x) end },
    { 'posterize', 0, function(x) return Fn.posterize(x, 3) end },
    { 'invert', 0, function(x) return Fn.invert(x) end },
    { 'solarize', 0, function(x) return Fn.solarize(x, 100) end },
    { 'adjustSaturation', 0, function(x) return Fn.adjustSaturation(x, 0.4) end },
    { 'adjustBrightness', 0, function(x) return Fn.adjustBrightness(x, 1.3) end },
    { 'rgbToGrayscale', 0, function(x) return Fn.rgbToGrayscale(x, 3) end },
    { 'adjustGamma', 1, function(x) return Fn.adjustGamma(x, 2.2) end },
    { 'adjustHue', 1, function(x) return Fn.adjustHue(x, 0.2) end },
    { 'adjustContrast', 1, function(x) return Fn.adjustContrast(x, 0.6) end },
    { 'autocontrast', 1, function(x) return Fn.autocontrast(x) end },
    { 'adjustSharpness', 1, function(x) return Fn.adjustSharpness(x, 2) end },
    { 'gaussianBlur', 1, function(x) return Fn.gaussianBlur(x, { 5, 3 }, { 1.2, 0.8 }) end } }) do
    local y = c[3](gb)
    tester:asserteq(torch.type(y), 'torch.CudaByteTensor', c[1] .. ' of a CUDA byte image')
    tester:assertTensorEq(y:byte():double(), c[3](B):double(), c[2], c[1] .. ' of a CUDA byte image')
  end
end

-- rgbToGrayscale of a 1-channel image with numOutputChannels 3: torchvision 0.14's tensor code
-- (functional_tensor.rgb_to_grayscale: l_img = img.clone(), then l_img.expand(img.shape)) keeps the
-- 1 channel; it was expanded to 3 channels here before.
function tests.grayscaleOfOneChannelKeepsOneChannel()
  for _, x in ipairs({ imgF(1, 5, 6), imgB(1, 5, 6), imgF(1, 5, 6):view(1, 1, 5, 6):expand(2, 1, 5, 6) }) do
    for _, n in ipairs({ 1, 3 }) do
      local y = Fn.rgbToGrayscale(x, n)
      tester:assertTableEq(y:size():totable(), x:size():totable(), 'size, numOutputChannels ' .. n)
      tester:assertTensorEq(y:double(), x:double(), 0, 'a copy, numOutputChannels ' .. n)
      tester:asserteq(torch.type(y), torch.type(x), 'the input\'s type')
      local before = x:clone()
      y:fill(1)
      tester:assertTensorEq(x:double(), before:double(), 0, 'a new tensor: x unchanged')
    end
  end
  tester:assertTableEq(T.Grayscale(3)(imgF(1, 5, 6)):size():totable(), { 1, 5, 6 }, 'Grayscale(3)')
end

tester:add(tests)
tester:run()
