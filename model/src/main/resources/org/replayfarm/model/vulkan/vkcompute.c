/*
 * vkcompute: the farm's Vulkan helper for compute shaders. Two modes, one spec file (written by
 * org.replayfarm.model.vulkan.VkSpec):
 *
 *   vkcompute compile SPEC   create the compute pipeline on whatever device the loader offers (RADV's null
 *                            navi21 when run with RADV_FORCE_FAMILY) with its internal representations
 *                            captured, and print every executable's statistics and IRs
 *   vkcompute run SPEC DIR   create the resources, upload the inputs, dispatch once and write every
 *                            binding's contents after the dispatch to DIR/out-SET-BINDING.bin, an array's
 *                            elements to DIR/out-SET-BINDING-ELEMENT.bin (lavapipe)
 *
 * Spec lines:
 *   spirv PATH | entry NAME | groups X Y Z | push SIZE PATH
 *   binding SET BINDING storage-buffer|uniform-buffer|storage-buffer-dynamic|uniform-buffer-dynamic SIZE PATH [DYNAMIC-OFFSET]
 *   binding SET BINDING storage-texel-buffer|uniform-texel-buffer VKFORMAT SIZE PATH
 *   binding SET BINDING storage-image|sampled-image VKFORMAT VIEWTYPE W H D LAYERS SAMPLES SIZE PATH
 *   binding SET BINDING sampler MAG MIN MIPMODE ADDRU ADDRV ADDRW UNNORM BORDER
 *                                  (MIPMODE 0 nearest, 1 linear, 2 none: level 0 only, maxLod 0.25)
 *   levels N                       the image of the binding line before has N mip levels, its file every level
 *                                  after the one above (each level's layers in order)
 *   binding SET BINDING combined-image-sampler VKFORMAT VIEWTYPE W H D LAYERS SAMPLES SIZE PATH MAG MIN MIPMODE ADDRU ADDRV ADDRW UNNORM BORDER
 *   msaa UPLOAD.spv DOWNLOAD.spv   the farm's shaders (msaa-upload.comp, msaa-download.comp) that move a
 *                                  multisampled image's texels in and out (Vulkan copies no buffer to or from
 *                                  one): texel-major, each texel's samples in order, through an unsigned view of
 *                                  the texel's size
 *   array SET BINDING COUNT VARIABLE   the binding is an array of COUNT descriptors (VARIABLE 1: a runtime-sized
 *                                      array, laid out with a variable descriptor count when it is its set's last)
 * A binding line's BINDING may carry [ELEMENT]: the array element it writes (0 when absent).
 * PATH "-" means zeros. Errors go to stderr as one line "vkcompute: ..." and exit 2.
 */
#include <vulkan/vulkan.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXB 256

typedef struct {
    int set, binding, count, variable;
} ArrayDecl;

static ArrayDecl arrays[MAXB];
static int na;

typedef struct {
    int set, binding, element, isArray;
    char kind[40];
    VkDescriptorType type;
    int format, viewType, w, h, d, layers, samples, levels;
    size_t size, dynamicOffset;
    char path[1024];
    int sampler[8];
    int hasImage, hasSampler, isBuffer, isTexel;
    VkBuffer buffer; VkDeviceMemory bufferMemory;
    VkBufferView bufferView;
    VkImage image; VkDeviceMemory imageMemory; VkImageView imageView, rawView;
    VkSampler vkSampler;
} Binding;

static char spirvPath[1024], entry[256] = "main", pushPath[1024], msaaUpload[1024], msaaDownload[1024];
static int groups[3] = {1, 1, 1};
static size_t pushSize;
static Binding bindings[MAXB];
static int nb;

static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("vkcompute: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

#define VK(call) do { VkResult r_ = (call); if (r_ != VK_SUCCESS) die("%s failed: VkResult %d", #call, (int) r_); } while (0)

static void *readFile(const char *path, size_t want, size_t *got) {
    void *data = calloc(1, want ? want : 1);
    if (strcmp(path, "-") == 0) { if (got) *got = want; return data; }
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    if (want == 0) {
        fseek(f, 0, SEEK_END);
        long n = ftell(f);
        fseek(f, 0, SEEK_SET);
        free(data);
        data = malloc(n > 0 ? n : 1);
        want = (size_t) n;
    }
    size_t n = fread(data, 1, want, f);
    fclose(f);
    if (got) *got = n;
    return data;
}

static VkDescriptorType typeOf(const char *kind) {
    if (!strcmp(kind, "storage-buffer")) return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    if (!strcmp(kind, "uniform-buffer")) return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER;
    if (!strcmp(kind, "storage-buffer-dynamic")) return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC;
    if (!strcmp(kind, "uniform-buffer-dynamic")) return VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC;
    if (!strcmp(kind, "storage-texel-buffer")) return VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER;
    if (!strcmp(kind, "uniform-texel-buffer")) return VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER;
    if (!strcmp(kind, "storage-image")) return VK_DESCRIPTOR_TYPE_STORAGE_IMAGE;
    if (!strcmp(kind, "sampled-image")) return VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE;
    if (!strcmp(kind, "sampler")) return VK_DESCRIPTOR_TYPE_SAMPLER;
    if (!strcmp(kind, "combined-image-sampler")) return VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER;
    if (!strcmp(kind, "acceleration-structure")) return VK_DESCRIPTOR_TYPE_ACCELERATION_STRUCTURE_KHR;
    die("unknown binding kind %s", kind);
    return 0;
}

static void parseSpec(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) die("cannot open spec %s", path);
    char line[4096];
    while (fgets(line, sizeof line, f)) {
        char word[64];
        if (sscanf(line, "%63s", word) != 1 || word[0] == '#') continue;
        if (!strcmp(word, "spirv")) sscanf(line, "%*s %1023s", spirvPath);
        else if (!strcmp(word, "entry")) sscanf(line, "%*s %255s", entry);
        else if (!strcmp(word, "groups")) sscanf(line, "%*s %d %d %d", &groups[0], &groups[1], &groups[2]);
        else if (!strcmp(word, "push")) sscanf(line, "%*s %zu %1023s", &pushSize, pushPath);
        else if (!strcmp(word, "msaa")) {
            if (sscanf(line, "%*s %1023s %1023s", msaaUpload, msaaDownload) != 2) die("bad msaa line: %s", line);
        }
        else if (!strcmp(word, "levels")) {
            if (nb == 0 || !bindings[nb - 1].hasImage) die("a levels line must follow an image's binding line: %s", line);
            if (sscanf(line, "%*s %d", &bindings[nb - 1].levels) != 1 || bindings[nb - 1].levels < 1
                || bindings[nb - 1].levels > 16)
                die("bad levels line: %s", line);
        }
        else if (!strcmp(word, "array")) {
            if (na == MAXB) die("more than %d arrays", MAXB);
            ArrayDecl *a = &arrays[na++];
            if (sscanf(line, "%*s %d %d %d %d", &a->set, &a->binding, &a->count, &a->variable) != 4 || a->count < 1)
                die("bad array line: %s", line);
        } else if (!strcmp(word, "binding")) {
            if (nb == MAXB) die("more than %d bindings", MAXB);
            Binding *b = &bindings[nb++];
            memset(b, 0, sizeof *b);
            int used = 0;
            if (sscanf(line, "%*s %d %d%n", &b->set, &b->binding, &used) < 2) die("bad line: %s", line);
            const char *rest = line + used;
            if (*rest == '[') {
                int skip = 0;
                if (sscanf(rest, "[%d]%n", &b->element, &skip) != 1 || skip == 0) die("bad element in: %s", line);
                rest += skip;
                b->isArray = 1;
            }
            if (sscanf(rest, " %39s %n", b->kind, &used) < 1) die("bad line: %s", line);
            rest += used;
            b->type = typeOf(b->kind);
            int n = 0;
            switch (b->type) {
            case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER: case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER:
            case VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC: case VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC:
                b->isBuffer = 1;
                n = sscanf(rest, "%zu %1023s %zu", &b->size, b->path, &b->dynamicOffset);
                if (n < 2) die("bad buffer line: %s", line);
                break;
            case VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER: case VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER:
                b->isBuffer = 1; b->isTexel = 1;
                n = sscanf(rest, "%d %zu %1023s", &b->format, &b->size, b->path);
                if (n != 3) die("bad texel buffer line: %s", line);
                break;
            case VK_DESCRIPTOR_TYPE_STORAGE_IMAGE: case VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE:
                b->hasImage = 1;
                n = sscanf(rest, "%d %d %d %d %d %d %d %zu %1023s", &b->format, &b->viewType, &b->w, &b->h, &b->d,
                           &b->layers, &b->samples, &b->size, b->path);
                if (n != 9) die("bad image line: %s", line);
                break;
            case VK_DESCRIPTOR_TYPE_SAMPLER:
                b->hasSampler = 1;
                n = sscanf(rest, "%d %d %d %d %d %d %d %d", &b->sampler[0], &b->sampler[1], &b->sampler[2],
                           &b->sampler[3], &b->sampler[4], &b->sampler[5], &b->sampler[6], &b->sampler[7]);
                if (n != 8) die("bad sampler line: %s", line);
                break;
            case VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER:
                b->hasImage = 1; b->hasSampler = 1;
                n = sscanf(rest, "%d %d %d %d %d %d %d %zu %1023s %d %d %d %d %d %d %d %d", &b->format, &b->viewType,
                           &b->w, &b->h, &b->d, &b->layers, &b->samples, &b->size, b->path, &b->sampler[0],
                           &b->sampler[1], &b->sampler[2], &b->sampler[3], &b->sampler[4], &b->sampler[5],
                           &b->sampler[6], &b->sampler[7]);
                if (n != 17) die("bad combined image sampler line: %s", line);
                break;
            default:
                break;
            }
        } else die("unknown spec line: %s", line);
    }
    fclose(f);
    if (!spirvPath[0]) die("spec names no spirv");
}

static uint32_t requiredSubgroupSize;
static VkInstance instance;
static VkPhysicalDevice physical;
static VkDevice device;
static VkQueue queue;
static uint32_t queueFamily;
static VkPhysicalDeviceMemoryProperties memProps;

static void createDevice(int captureIr) {
    VkApplicationInfo app = {VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "replay-farm";
    app.apiVersion = VK_API_VERSION_1_2;
    VkInstanceCreateInfo ici = {VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    ici.pApplicationInfo = &app;
    VK(vkCreateInstance(&ici, NULL, &instance));
    uint32_t n = 0;
    VK(vkEnumeratePhysicalDevices(instance, &n, NULL));
    if (n == 0) die("no Vulkan device (is the ICD installed? VK_ICD_FILENAMES=%s)",
                    getenv("VK_ICD_FILENAMES") ? getenv("VK_ICD_FILENAMES") : "unset");
    VkPhysicalDevice devs[8];
    if (n > 8) n = 8;
    VK(vkEnumeratePhysicalDevices(instance, &n, devs));
    physical = devs[0];
    VkPhysicalDeviceProperties props;
    vkGetPhysicalDeviceProperties(physical, &props);
    printf("@@device %s\n", props.deviceName);
    printf("@@driver-version %u.%u.%u\n", VK_VERSION_MAJOR(props.driverVersion), VK_VERSION_MINOR(props.driverVersion),
           VK_VERSION_PATCH(props.driverVersion));
    VkPhysicalDeviceDriverProperties driver = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    VkPhysicalDeviceProperties2 p2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    p2.pNext = &driver;
    vkGetPhysicalDeviceProperties2(physical, &p2);
    printf("@@driver-info %s %s\n", driver.driverName, driver.driverInfo);
    vkGetPhysicalDeviceMemoryProperties(physical, &memProps);

    uint32_t qn = 0;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, NULL);
    VkQueueFamilyProperties qf[16];
    if (qn > 16) qn = 16;
    vkGetPhysicalDeviceQueueFamilyProperties(physical, &qn, qf);
    queueFamily = 0;
    for (uint32_t i = 0; i < qn; i++) if (qf[i].queueFlags & VK_QUEUE_COMPUTE_BIT) { queueFamily = i; break; }

    /* every feature the device has, so shaders that use 16/64-bit types, subgroups or ray queries compile */
    VkPhysicalDeviceRayQueryFeaturesKHR rq = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_RAY_QUERY_FEATURES_KHR};
    VkPhysicalDeviceAccelerationStructureFeaturesKHR as = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ACCELERATION_STRUCTURE_FEATURES_KHR};
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR pe = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    VkPhysicalDeviceVulkan12Features v12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceSubgroupSizeControlFeatures ssc = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_FEATURES};
    VkPhysicalDeviceVulkan11Features v11 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES};
    VkPhysicalDeviceFeatures2 f2 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    f2.pNext = &v11; v11.pNext = &v12; v12.pNext = &pe; pe.pNext = &as; as.pNext = &rq;
    vkGetPhysicalDeviceFeatures2(physical, &f2);
    VkPhysicalDeviceFeatures2 probe = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    probe.pNext = &ssc;
    vkGetPhysicalDeviceFeatures2(physical, &probe);
    /* what a game's pipeline gets by default: no robust buffer access (it changes the code RADV emits) */
    f2.features.robustBufferAccess = VK_FALSE;

    uint32_t en = 0;
    vkEnumerateDeviceExtensionProperties(physical, NULL, &en, NULL);
    VkExtensionProperties *exts = calloc(en ? en : 1, sizeof *exts);
    vkEnumerateDeviceExtensionProperties(physical, NULL, &en, exts);
    const char *want[] = {"VK_KHR_pipeline_executable_properties", "VK_KHR_ray_query",
                          "VK_KHR_acceleration_structure", "VK_KHR_deferred_host_operations"};
    const char *enabled[8];
    uint32_t ne = 0;
    int haveRq = 0, haveAs = 0;
    for (size_t w = 0; w < sizeof want / sizeof *want; w++)
        for (uint32_t i = 0; i < en; i++)
            if (!strcmp(exts[i].extensionName, want[w])) {
                enabled[ne++] = want[w];
                if (w == 1) haveRq = 1;
                if (w == 2) haveAs = 1;
            }
    if (!haveRq) rq.rayQuery = VK_FALSE;
    if (!haveAs) { as.accelerationStructure = VK_FALSE; }
    as.accelerationStructureCaptureReplay = VK_FALSE;
    as.accelerationStructureHostCommands = VK_FALSE;
    as.accelerationStructureIndirectBuild = VK_FALSE;
    if (!captureIr) pe.pipelineExecutableInfo = VK_FALSE;
    /* chain only what the device knows */
    pe.pNext = haveAs ? (void *) &as : NULL;
    as.pNext = haveRq ? (void *) &rq : NULL;
    v12.pNext = (captureIr || haveAs) ? (void *) &pe : NULL;
    if (!captureIr) pe.pNext = NULL, v12.pNext = NULL;

    /* a required subgroup size (REPLAY_VK_SUBGROUP_SIZE): RADV otherwise compiles shaders that use
       subgroup operations for wave64 whatever RADV_PERFTEST says */
    if (requiredSubgroupSize) {
        if (!ssc.subgroupSizeControl) die("the device does not offer subgroupSizeControl (a required subgroup size)");
        ssc.pNext = f2.pNext;
        f2.pNext = &ssc;
        ssc.computeFullSubgroups = VK_FALSE;
    }
    float prio = 1.0f;
    VkDeviceQueueCreateInfo qci = {VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qci.queueFamilyIndex = queueFamily;
    qci.queueCount = 1;
    qci.pQueuePriorities = &prio;
    VkDeviceCreateInfo dci = {VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    dci.pNext = &f2;
    dci.queueCreateInfoCount = 1;
    dci.pQueueCreateInfos = &qci;
    dci.enabledExtensionCount = ne;
    dci.ppEnabledExtensionNames = enabled;
    VK(vkCreateDevice(physical, &dci, NULL, &device));
    vkGetDeviceQueue(device, queueFamily, 0, &queue);
}

static VkDescriptorSetLayout setLayouts[8];
static uint32_t variableCount[8];
static int setCount;
static VkPipelineLayout pipelineLayout;
static VkPipeline pipeline;
static VkShaderModule module;

static VkSampler makeSampler(const int *s) {
    VkSamplerCreateInfo sci = {VK_STRUCTURE_TYPE_SAMPLER_CREATE_INFO};
    sci.magFilter = s[0];
    sci.minFilter = s[1];
    sci.mipmapMode = s[2] == 1 ? VK_SAMPLER_MIPMAP_MODE_LINEAR : VK_SAMPLER_MIPMAP_MODE_NEAREST;
    sci.addressModeU = s[3];
    sci.addressModeV = s[4];
    sci.addressModeW = s[5];
    sci.unnormalizedCoordinates = s[6];
    sci.borderColor = s[7];
    /* MIPMODE none: the specification's emulation of a filter without mipmaps, maxLod 0.25 (level 0, and the LOD
     * still chooses between magnification and minification) */
    sci.maxLod = s[6] ? 0.0f : s[2] == 2 ? 0.25f : 1000.0f;
    VkSampler out;
    VK(vkCreateSampler(device, &sci, NULL, &out));
    return out;
}

static void createPipeline(int captureIr) {
    size_t spvSize;
    void *spv = readFile(spirvPath, 0, &spvSize);
    VkShaderModuleCreateInfo smci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = spvSize;
    smci.pCode = spv;
    VK(vkCreateShaderModule(device, &smci, NULL, &module));

    setCount = 0;
    for (int i = 0; i < nb; i++) if (bindings[i].set + 1 > setCount) setCount = bindings[i].set + 1;
    if (setCount > 8) die("descriptor set %d: at most 8 sets", setCount - 1);
    for (int s = 0; s < setCount; s++) {
        VkDescriptorSetLayoutBinding lb[MAXB];
        VkDescriptorBindingFlags flags[MAXB];
        uint32_t n = 0;
        int anyVariable = 0;
        for (int i = 0; i < nb; i++) {
            if (bindings[i].set != s) continue;
            int seen = 0;
            for (uint32_t k = 0; k < n; k++) if (lb[k].binding == (uint32_t) bindings[i].binding) seen = 1;
            if (seen) continue; /* another element of an array */
            memset(&lb[n], 0, sizeof lb[n]);
            lb[n].binding = bindings[i].binding;
            lb[n].descriptorType = bindings[i].type;
            lb[n].descriptorCount = 1;
            lb[n].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
            flags[n] = 0;
            for (int a = 0; a < na; a++) {
                if (arrays[a].set != s || arrays[a].binding != bindings[i].binding) continue;
                lb[n].descriptorCount = arrays[a].count;
                if (arrays[a].variable) variableCount[s] = arrays[a].count;
            }
            n++;
        }
        /* a variable descriptor count is allowed on the set's highest binding only */
        if (variableCount[s]) {
            uint32_t last = 0;
            for (uint32_t k = 1; k < n; k++) if (lb[k].binding > lb[last].binding) last = k;
            int isVariable = 0;
            for (int a = 0; a < na; a++)
                if (arrays[a].set == s && arrays[a].variable && (uint32_t) arrays[a].binding == lb[last].binding)
                    isVariable = 1;
            if (isVariable) {
                flags[last] = VK_DESCRIPTOR_BINDING_VARIABLE_DESCRIPTOR_COUNT_BIT;
                anyVariable = 1;
            } else variableCount[s] = 0;
        }
        VkDescriptorSetLayoutBindingFlagsCreateInfo bf = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_BINDING_FLAGS_CREATE_INFO};
        bf.bindingCount = n;
        bf.pBindingFlags = flags;
        VkDescriptorSetLayoutCreateInfo dl = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        if (anyVariable) dl.pNext = &bf;
        dl.bindingCount = n;
        dl.pBindings = lb;
        VK(vkCreateDescriptorSetLayout(device, &dl, NULL, &setLayouts[s]));
    }
    VkPushConstantRange pcr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t) pushSize};
    VkPipelineLayoutCreateInfo plci = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = setCount;
    plci.pSetLayouts = setLayouts;
    plci.pushConstantRangeCount = pushSize ? 1 : 0;
    plci.pPushConstantRanges = &pcr;
    VK(vkCreatePipelineLayout(device, &plci, NULL, &pipelineLayout));

    VkComputePipelineCreateInfo cpci = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpci.stage.module = module;
    cpci.stage.pName = entry;
    cpci.layout = pipelineLayout;
    if (captureIr)
        cpci.flags = VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR |
                     VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkPipelineShaderStageRequiredSubgroupSizeCreateInfo rss = {
        VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO};
    if (requiredSubgroupSize) {
        rss.requiredSubgroupSize = requiredSubgroupSize;
        cpci.stage.pNext = &rss;
    }
    VK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpci, NULL, &pipeline));
    if (captureIr) {
        /* the same pipeline once more, through a cache: the cache's data holds the driver's binary with its
           config registers (COMPUTE_PGM_RSRC1/2/3, float mode, scratch), which the IRs do not print */
        VkPipelineCacheCreateInfo pcci = {VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
        VkPipelineCache cache;
        VK(vkCreatePipelineCache(device, &pcci, NULL, &cache));
        cpci.flags = 0;
        VkPipeline cached;
        VK(vkCreateComputePipelines(device, cache, 1, &cpci, NULL, &cached));
        size_t size = 0;
        VK(vkGetPipelineCacheData(device, cache, &size, NULL));
        unsigned char *data = malloc(size ? size : 1);
        VK(vkGetPipelineCacheData(device, cache, &size, data));
        printf("@@cache ");
        for (size_t i = 0; i < size; i++) printf("%02x", data[i]);
        printf("\n");
        free(data);
    }
}

static void dumpExecutables(void) {
    PFN_vkGetPipelineExecutablePropertiesKHR props =
        (PFN_vkGetPipelineExecutablePropertiesKHR) vkGetDeviceProcAddr(device, "vkGetPipelineExecutablePropertiesKHR");
    PFN_vkGetPipelineExecutableStatisticsKHR stats =
        (PFN_vkGetPipelineExecutableStatisticsKHR) vkGetDeviceProcAddr(device, "vkGetPipelineExecutableStatisticsKHR");
    PFN_vkGetPipelineExecutableInternalRepresentationsKHR irs =
        (PFN_vkGetPipelineExecutableInternalRepresentationsKHR)
            vkGetDeviceProcAddr(device, "vkGetPipelineExecutableInternalRepresentationsKHR");
    if (!props || !stats || !irs) die("the device does not offer VK_KHR_pipeline_executable_properties");
    VkPipelineInfoKHR pi = {VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    pi.pipeline = pipeline;
    uint32_t n = 0;
    VK(props(device, &pi, &n, NULL));
    VkPipelineExecutablePropertiesKHR *ep = calloc(n ? n : 1, sizeof *ep);
    for (uint32_t i = 0; i < n; i++) ep[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR;
    VK(props(device, &pi, &n, ep));
    for (uint32_t e = 0; e < n; e++) {
        printf("@@executable %s\n@@subgroup-size %u\n", ep[e].name, ep[e].subgroupSize);
        VkPipelineExecutableInfoKHR ei = {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        ei.pipeline = pipeline;
        ei.executableIndex = e;
        uint32_t sn = 0;
        VK(stats(device, &ei, &sn, NULL));
        VkPipelineExecutableStatisticKHR *st = calloc(sn ? sn : 1, sizeof *st);
        for (uint32_t i = 0; i < sn; i++) st[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR;
        VK(stats(device, &ei, &sn, st));
        for (uint32_t i = 0; i < sn; i++) {
            switch (st[i].format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: printf("@@stat %s=%u\n", st[i].name, st[i].value.b32); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: printf("@@stat %s=%lld\n", st[i].name, (long long) st[i].value.i64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: printf("@@stat %s=%llu\n", st[i].name, (unsigned long long) st[i].value.u64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: printf("@@stat %s=%g\n", st[i].name, st[i].value.f64); break;
            default: break;
            }
        }
        uint32_t rn = 0;
        VK(irs(device, &ei, &rn, NULL));
        VkPipelineExecutableInternalRepresentationKHR *ir = calloc(rn ? rn : 1, sizeof *ir);
        for (uint32_t i = 0; i < rn; i++) ir[i].sType = VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR;
        VK(irs(device, &ei, &rn, ir));
        for (uint32_t i = 0; i < rn; i++) {
            ir[i].pData = calloc(1, ir[i].dataSize + 1);
        }
        VkResult r = irs(device, &ei, &rn, ir);
        if (r != VK_SUCCESS && r != VK_INCOMPLETE) die("internal representations: VkResult %d", (int) r);
        for (uint32_t i = 0; i < rn; i++) {
            printf("@@ir %s\n", ir[i].name);
            fputs((const char *) ir[i].pData, stdout);
            printf("\n@@end-ir\n");
        }
    }
}

static uint32_t memoryType(uint32_t bits, VkMemoryPropertyFlags want) {
    for (uint32_t i = 0; i < memProps.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (memProps.memoryTypes[i].propertyFlags & want) == want) return i;
    die("no memory type with flags 0x%x", want);
    return 0;
}

static void makeBuffer(size_t size, VkBufferUsageFlags usage, VkBuffer *buf, VkDeviceMemory *mem) {
    VkBufferCreateInfo bci = {VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = size ? size : 4;
    bci.usage = usage;
    VK(vkCreateBuffer(device, &bci, NULL, buf));
    VkMemoryRequirements req;
    vkGetBufferMemoryRequirements(device, *buf, &req);
    VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = memoryType(req.memoryTypeBits,
                                     VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT);
    VK(vkAllocateMemory(device, &mai, NULL, mem));
    VK(vkBindBufferMemory(device, *buf, *mem, 0));
}

static void fillMemory(VkDeviceMemory mem, const void *data, size_t size) {
    void *p;
    VK(vkMapMemory(device, mem, 0, VK_WHOLE_SIZE, 0, &p));
    memcpy(p, data, size);
    vkUnmapMemory(device, mem);
}

static VkImageType imageTypeOf(int viewType) {
    switch (viewType) {
    case VK_IMAGE_VIEW_TYPE_1D: case VK_IMAGE_VIEW_TYPE_1D_ARRAY: return VK_IMAGE_TYPE_1D;
    case VK_IMAGE_VIEW_TYPE_3D: return VK_IMAGE_TYPE_3D;
    default: return VK_IMAGE_TYPE_2D;
    }
}

static int levelsOf(const Binding *b) {
    return b->levels > 0 ? b->levels : 1;
}

/* One copy region per level, each level's layers after the one above's in the buffer. */
static uint32_t levelCopies(const Binding *b, VkBufferImageCopy *copies) {
    int levels = levelsOf(b);
    size_t texels = 0;
    for (int l = 0; l < levels; l++) {
        size_t w = b->w >> l ? b->w >> l : 1, h = b->h >> l ? b->h >> l : 1, d = b->d >> l ? b->d >> l : 1;
        texels += w * h * d * b->layers;
    }
    size_t bytesPerTexel = b->size / texels;
    VkDeviceSize offset = 0;
    for (int l = 0; l < levels; l++) {
        uint32_t w = b->w >> l ? b->w >> l : 1, h = b->h >> l ? b->h >> l : 1, d = b->d >> l ? b->d >> l : 1;
        VkBufferImageCopy c = {0};
        c.bufferOffset = offset;
        c.imageSubresource.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
        c.imageSubresource.mipLevel = l;
        c.imageSubresource.layerCount = b->layers;
        c.imageExtent.width = w;
        c.imageExtent.height = h;
        c.imageExtent.depth = d;
        copies[l] = c;
        offset += (VkDeviceSize) w * h * d * b->layers * bytesPerTexel;
    }
    return (uint32_t) levels;
}

static void barrierImage(VkCommandBuffer cb, VkImage image, VkImageLayout from, VkImageLayout to, int layers) {
    VkImageMemoryBarrier ib = {VK_STRUCTURE_TYPE_IMAGE_MEMORY_BARRIER};
    ib.srcAccessMask = VK_ACCESS_MEMORY_WRITE_BIT;
    ib.dstAccessMask = VK_ACCESS_MEMORY_READ_BIT | VK_ACCESS_MEMORY_WRITE_BIT;
    ib.oldLayout = from;
    ib.newLayout = to;
    ib.srcQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.dstQueueFamilyIndex = VK_QUEUE_FAMILY_IGNORED;
    ib.image = image;
    ib.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
    ib.subresourceRange.levelCount = VK_REMAINING_MIP_LEVELS;
    ib.subresourceRange.layerCount = layers;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, VK_PIPELINE_STAGE_ALL_COMMANDS_BIT, 0, 0, NULL, 0,
                         NULL, 1, &ib);
}

/* A multisampled image's texels in and out: one of the farm's two helper pipelines (binding 0 the words, binding 1
 * the image through its unsigned view: a storage image to upload, a combined image sampler to download). */
typedef struct {
    VkDescriptorSetLayout layout;
    VkPipelineLayout pipelineLayout;
    VkPipeline pipeline;
} MsaaPipe;

static MsaaPipe msaaPipe(const char *spv, VkDescriptorType imageType) {
    MsaaPipe m;
    if (!spv[0]) die("a multisampled image needs the spec's msaa line");
    VkDescriptorSetLayoutBinding lb[2] = {{0}};
    lb[0].binding = 0; lb[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER; lb[0].descriptorCount = 1;
    lb[0].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    lb[1].binding = 1; lb[1].descriptorType = imageType; lb[1].descriptorCount = 1;
    lb[1].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    VkDescriptorSetLayoutCreateInfo dl = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dl.bindingCount = 2; dl.pBindings = lb;
    VK(vkCreateDescriptorSetLayout(device, &dl, NULL, &m.layout));
    VkPushConstantRange pr = {VK_SHADER_STAGE_COMPUTE_BIT, 0, 20};
    VkPipelineLayoutCreateInfo pl = {VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1; pl.pSetLayouts = &m.layout; pl.pushConstantRangeCount = 1; pl.pPushConstantRanges = &pr;
    VK(vkCreatePipelineLayout(device, &pl, NULL, &m.pipelineLayout));
    size_t n;
    void *code = readFile(spv, 0, &n);
    VkShaderModuleCreateInfo smci = {VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    smci.codeSize = n; smci.pCode = code;
    VkShaderModule sm;
    VK(vkCreateShaderModule(device, &smci, NULL, &sm));
    VkComputePipelineCreateInfo c = {VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    c.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    c.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT; c.stage.module = sm; c.stage.pName = "main";
    c.layout = m.pipelineLayout;
    VK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &c, NULL, &m.pipeline));
    free(code);
    return m;
}

/* Records one helper dispatch over every sample of binding b's image, the words in buffer words. */
static void msaaMove(VkCommandBuffer cb, VkDescriptorPool pool, const MsaaPipe *m, VkDescriptorType imageType,
                     Binding *b, VkBuffer words, VkSampler sampler) {
    VkDescriptorSetAllocateInfo a = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    a.descriptorPool = pool; a.descriptorSetCount = 1; a.pSetLayouts = &m->layout;
    VkDescriptorSet set;
    VK(vkAllocateDescriptorSets(device, &a, &set));
    VkDescriptorBufferInfo dbi = {words, 0, VK_WHOLE_SIZE};
    VkDescriptorImageInfo dii = {sampler, b->rawView, VK_IMAGE_LAYOUT_GENERAL};
    VkWriteDescriptorSet w[2] = {{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET}};
    w[0].dstSet = set; w[0].dstBinding = 0; w[0].descriptorCount = 1;
    w[0].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER; w[0].pBufferInfo = &dbi;
    w[1].dstSet = set; w[1].dstBinding = 1; w[1].descriptorCount = 1; w[1].descriptorType = imageType;
    w[1].pImageInfo = &dii;
    vkUpdateDescriptorSets(device, 2, w, 0, NULL);
    uint32_t total = (uint32_t) b->w * b->h * b->layers * b->samples;
    uint32_t push[5] = {(uint32_t) b->w, (uint32_t) b->h, (uint32_t) b->layers, (uint32_t) b->samples,
                        (uint32_t) (b->size / total)};
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, m->pipeline);
    vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, m->pipelineLayout, 0, 1, &set, 0, NULL);
    vkCmdPushConstants(cb, m->pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof push, push);
    vkCmdDispatch(cb, (total + 63) / 64, 1, 1);
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &mb, 0, NULL, 0, NULL);
}

/* The unsigned format of a texel size, for the helpers' view of a multisampled image. */
static VkFormat rawFormat(size_t bpt) {
    switch (bpt) {
    case 1: return VK_FORMAT_R8_UINT;
    case 2: return VK_FORMAT_R16_UINT;
    case 4: return VK_FORMAT_R32_UINT;
    case 8: return VK_FORMAT_R32G32_UINT;
    case 16: return VK_FORMAT_R32G32B32A32_UINT;
    default: die("a multisampled image of %zu-byte texels has no unsigned view (1, 2, 4, 8 or 16 bytes)", bpt);
    }
    return VK_FORMAT_UNDEFINED;
}

static void runDispatch(const char *outDir) {
    VkCommandPoolCreateInfo cpi = {VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.queueFamilyIndex = queueFamily;
    VkCommandPool pool;
    VK(vkCreateCommandPool(device, &cpi, NULL, &pool));
    VkCommandBufferAllocateInfo cbai = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    cbai.commandPool = pool;
    cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    cbai.commandBufferCount = 1;
    VkCommandBuffer cb;
    VK(vkAllocateCommandBuffers(device, &cbai, &cb));
    VkCommandBufferBeginInfo bi = {VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    VK(vkBeginCommandBuffer(cb, &bi));

    VkBuffer staging[MAXB];
    VkDeviceMemory stagingMem[MAXB];
    MsaaPipe up = {0}, down = {0};
    VkDescriptorPool msaaPool = VK_NULL_HANDLE;
    VkSampler msaaSampler = VK_NULL_HANDLE;
    for (int i = 0; i < nb; i++) {
        if (!bindings[i].hasImage || bindings[i].samples <= 1 || up.pipeline) continue;
        up = msaaPipe(msaaUpload, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE);
        down = msaaPipe(msaaDownload, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER);
        VkDescriptorPoolSize ps[3] = {{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 2 * MAXB},
                                      {VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, MAXB},
                                      {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, MAXB}};
        VkDescriptorPoolCreateInfo p = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        p.maxSets = 2 * MAXB; p.poolSizeCount = 3; p.pPoolSizes = ps;
        VK(vkCreateDescriptorPool(device, &p, NULL, &msaaPool));
        int nearest[8] = {0, 0, 0, 2, 2, 2, 0, 0};
        msaaSampler = makeSampler(nearest);
    }
    for (int i = 0; i < nb; i++) {
        Binding *b = &bindings[i];
        if (b->isBuffer) {
            VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_BUFFER_BIT |
                                       VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
            if (b->isTexel) usage = VK_BUFFER_USAGE_STORAGE_TEXEL_BUFFER_BIT | VK_BUFFER_USAGE_UNIFORM_TEXEL_BUFFER_BIT;
            makeBuffer(b->size, usage, &b->buffer, &b->bufferMemory);
            size_t got;
            void *data = readFile(b->path, b->size, &got);
            fillMemory(b->bufferMemory, data, b->size);
            free(data);
            if (b->isTexel) {
                VkBufferViewCreateInfo bv = {VK_STRUCTURE_TYPE_BUFFER_VIEW_CREATE_INFO};
                bv.buffer = b->buffer;
                bv.format = b->format;
                bv.range = VK_WHOLE_SIZE;
                VK(vkCreateBufferView(device, &bv, NULL, &b->bufferView));
            }
        }
        if (b->hasImage) {
            VkImageCreateInfo ic = {VK_STRUCTURE_TYPE_IMAGE_CREATE_INFO};
            ic.imageType = imageTypeOf(b->viewType);
            ic.format = b->format;
            ic.extent.width = b->w;
            ic.extent.height = b->h;
            ic.extent.depth = b->d;
            ic.mipLevels = levelsOf(b);
            ic.arrayLayers = b->layers;
            int ms = b->samples > 1;
            ic.samples = ms ? (VkSampleCountFlagBits) b->samples : VK_SAMPLE_COUNT_1_BIT;
            ic.tiling = VK_IMAGE_TILING_OPTIMAL;
            ic.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT |
                       VK_IMAGE_USAGE_TRANSFER_DST_BIT;
            if (b->viewType == VK_IMAGE_VIEW_TYPE_CUBE || b->viewType == VK_IMAGE_VIEW_TYPE_CUBE_ARRAY)
                ic.flags = VK_IMAGE_CREATE_CUBE_COMPATIBLE_BIT;
            if (ms) {
                VkImageFormatProperties ifp;
                VkResult fr = vkGetPhysicalDeviceImageFormatProperties(physical, b->format, VK_IMAGE_TYPE_2D,
                        VK_IMAGE_TILING_OPTIMAL, VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT,
                        VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT, &ifp);
                if (fr != VK_SUCCESS || !(ifp.sampleCounts & (VkSampleCountFlags) b->samples))
                    die("binding %d.%d: this device has no %d-sample images of VkFormat %d (sample counts 0x%x)",
                        b->set, b->binding, b->samples, b->format, fr == VK_SUCCESS ? ifp.sampleCounts : 0);
                ic.flags |= VK_IMAGE_CREATE_MUTABLE_FORMAT_BIT;
                ic.usage = VK_IMAGE_USAGE_STORAGE_BIT | VK_IMAGE_USAGE_SAMPLED_BIT;
            }
            ic.initialLayout = VK_IMAGE_LAYOUT_UNDEFINED;
            VK(vkCreateImage(device, &ic, NULL, &b->image));
            VkMemoryRequirements req;
            vkGetImageMemoryRequirements(device, b->image, &req);
            VkMemoryAllocateInfo mai = {VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
            mai.allocationSize = req.size;
            mai.memoryTypeIndex = memoryType(req.memoryTypeBits, 0);
            VK(vkAllocateMemory(device, &mai, NULL, &b->imageMemory));
            VK(vkBindImageMemory(device, b->image, b->imageMemory, 0));
            VkImageViewCreateInfo iv = {VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO};
            iv.image = b->image;
            iv.viewType = b->viewType;
            iv.format = b->format;
            iv.subresourceRange.aspectMask = VK_IMAGE_ASPECT_COLOR_BIT;
            iv.subresourceRange.levelCount = levelsOf(b);
            iv.subresourceRange.layerCount = b->layers;
            VK(vkCreateImageView(device, &iv, NULL, &b->imageView));
            makeBuffer(b->size, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT
                       | VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, &staging[i], &stagingMem[i]);
            void *data = readFile(b->path, b->size, NULL);
            fillMemory(stagingMem[i], data, b->size);
            free(data);
            if (ms) {
                iv.viewType = VK_IMAGE_VIEW_TYPE_2D_ARRAY;
                iv.format = rawFormat(b->size / ((size_t) b->w * b->h * b->layers * b->samples));
                VK(vkCreateImageView(device, &iv, NULL, &b->rawView));
                barrierImage(cb, b->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_GENERAL, b->layers);
                msaaMove(cb, msaaPool, &up, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE, b, staging[i], VK_NULL_HANDLE);
                if (b->hasSampler) b->vkSampler = makeSampler(b->sampler);
                continue;
            }
            barrierImage(cb, b->image, VK_IMAGE_LAYOUT_UNDEFINED, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, b->layers);
            VkBufferImageCopy copies[16];
            uint32_t nc = levelCopies(b, copies);
            vkCmdCopyBufferToImage(cb, staging[i], b->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, nc, copies);
            barrierImage(cb, b->image, VK_IMAGE_LAYOUT_TRANSFER_DST_OPTIMAL, VK_IMAGE_LAYOUT_GENERAL, b->layers);
        }
        if (b->hasSampler) b->vkSampler = makeSampler(b->sampler);
    }

    VkDescriptorPoolSize sizes[11];
    int ns = 0;
    VkDescriptorType all[] = {VK_DESCRIPTOR_TYPE_SAMPLER, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER,
                              VK_DESCRIPTOR_TYPE_SAMPLED_IMAGE, VK_DESCRIPTOR_TYPE_STORAGE_IMAGE,
                              VK_DESCRIPTOR_TYPE_UNIFORM_TEXEL_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_TEXEL_BUFFER,
                              VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                              VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC};
    for (int t = 0; t < 10; t++) {
        sizes[ns].type = all[t];
        sizes[ns].descriptorCount = MAXB * 8;
        ns++;
    }
    VkDescriptorPoolCreateInfo dpci = {VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = 8;
    dpci.poolSizeCount = ns;
    dpci.pPoolSizes = sizes;
    VkDescriptorPool dpool;
    VK(vkCreateDescriptorPool(device, &dpci, NULL, &dpool));
    VkDescriptorSet sets[8];
    if (setCount) {
        VkDescriptorSetAllocateInfo dsai = {VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        dsai.descriptorPool = dpool;
        dsai.descriptorSetCount = setCount;
        dsai.pSetLayouts = setLayouts;
        VkDescriptorSetVariableDescriptorCountAllocateInfo vc = {
            VK_STRUCTURE_TYPE_DESCRIPTOR_SET_VARIABLE_DESCRIPTOR_COUNT_ALLOCATE_INFO};
        vc.descriptorSetCount = setCount;
        vc.pDescriptorCounts = variableCount;
        dsai.pNext = &vc;
        VK(vkAllocateDescriptorSets(device, &dsai, sets));
    }
    uint32_t dynamicOffsets[MAXB];
    int ndyn = 0;
    for (int i = 0; i < nb; i++) {
        Binding *b = &bindings[i];
        VkWriteDescriptorSet w = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = sets[b->set];
        w.dstBinding = b->binding;
        w.dstArrayElement = b->element;
        w.descriptorCount = 1;
        w.descriptorType = b->type;
        VkDescriptorBufferInfo dbi = {b->buffer, 0, VK_WHOLE_SIZE};
        VkDescriptorImageInfo dii = {b->vkSampler, b->imageView, VK_IMAGE_LAYOUT_GENERAL};
        if (b->isTexel) w.pTexelBufferView = &b->bufferView;
        else if (b->isBuffer) w.pBufferInfo = &dbi;
        else w.pImageInfo = &dii;
        if (b->type == VK_DESCRIPTOR_TYPE_STORAGE_BUFFER_DYNAMIC || b->type == VK_DESCRIPTOR_TYPE_UNIFORM_BUFFER_DYNAMIC)
            dynamicOffsets[ndyn++] = (uint32_t) b->dynamicOffset;
        vkUpdateDescriptorSets(device, 1, &w, 0, NULL);
    }
    vkCmdBindPipeline(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    if (setCount)
        vkCmdBindDescriptorSets(cb, VK_PIPELINE_BIND_POINT_COMPUTE, pipelineLayout, 0, setCount, sets, ndyn,
                                dynamicOffsets);
    if (pushSize) {
        void *push = readFile(pushPath, pushSize, NULL);
        vkCmdPushConstants(cb, pipelineLayout, VK_SHADER_STAGE_COMPUTE_BIT, 0, (uint32_t) pushSize, push);
    }
    vkCmdDispatch(cb, groups[0], groups[1], groups[2]);
    VkMemoryBarrier mb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    mb.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    mb.dstAccessMask = VK_ACCESS_HOST_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_SHADER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         0, 1, &mb, 0, NULL, 0, NULL);
    for (int i = 0; i < nb; i++) {
        Binding *b = &bindings[i];
        if (!b->hasImage) continue;
        if (b->samples > 1) {
            vkCmdFillBuffer(cb, staging[i], 0, VK_WHOLE_SIZE, 0);
            VkMemoryBarrier fb = {VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            fb.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            fb.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &fb, 0, NULL, 0, NULL);
            msaaMove(cb, msaaPool, &down, VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, b, staging[i], msaaSampler);
            continue;
        }
        barrierImage(cb, b->image, VK_IMAGE_LAYOUT_GENERAL, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, b->layers);
        VkBufferImageCopy copies[16];
        uint32_t nc = levelCopies(b, copies);
        vkCmdCopyImageToBuffer(cb, b->image, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL, staging[i], nc, copies);
    }
    VK(vkEndCommandBuffer(cb));
    VkSubmitInfo si = {VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    VK(vkQueueSubmit(queue, 1, &si, VK_NULL_HANDLE));
    VK(vkQueueWaitIdle(queue));

    for (int i = 0; i < nb; i++) {
        Binding *b = &bindings[i];
        if (!b->isBuffer && !b->hasImage) continue;
        char out[2048];
        if (b->isArray) snprintf(out, sizeof out, "%s/out-%d-%d-%d.bin", outDir, b->set, b->binding, b->element);
        else snprintf(out, sizeof out, "%s/out-%d-%d.bin", outDir, b->set, b->binding);
        void *p;
        VK(vkMapMemory(device, b->hasImage ? stagingMem[i] : b->bufferMemory, 0, VK_WHOLE_SIZE, 0, &p));
        FILE *f = fopen(out, "wb");
        if (!f) die("cannot write %s", out);
        fwrite(p, 1, b->size, f);
        fclose(f);
        vkUnmapMemory(device, b->hasImage ? stagingMem[i] : b->bufferMemory);
    }
    printf("@@ran %d %d %d\n", groups[0], groups[1], groups[2]);
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: vkcompute compile SPEC | vkcompute run SPEC OUTDIR");
    setvbuf(stdout, NULL, _IOFBF, 1 << 16);
    parseSpec(argv[2]);
    if (getenv("REPLAY_VK_SUBGROUP_SIZE")) requiredSubgroupSize = (uint32_t) atoi(getenv("REPLAY_VK_SUBGROUP_SIZE"));
    if (!strcmp(argv[1], "compile")) {
        createDevice(1);
        createPipeline(1);
        dumpExecutables();
    } else if (!strcmp(argv[1], "run")) {
        if (argc < 4) die("run needs an output directory");
        createDevice(0);
        createPipeline(0);
        runDispatch(argv[3]);
    } else die("unknown mode %s", argv[1]);
    fflush(stdout);
    return 0;
}
