"""The upstream API types' JSON field names, one Go struct a line (see netpol.loading.schema for the codes).

Facts read from kubernetes/api 10b39a3 (core/v1, apps/v1, batch/v1, networking/v1, policy/v1,
scheduling/v1 types.go) and kubernetes/apimachinery eed236c (meta/v1 types.go), July 2026: every struct
reachable from the kinds netpol reads. Continuation lines start with spaces.
"""

TABLE = """
Pod core/v1: kind apiVersion metadata=ObjectMeta spec=PodSpec status=PodStatus
ObjectMeta meta/v1: name generateName namespace selfLink uid resourceVersion generation=i creationTimestamp=t
    deletionTimestamp=t deletionGracePeriodSeconds=i labels=m annotations=m ownerReferences=[]OwnerReference
    finalizers=S managedFields=[]ManagedFieldsEntry
OwnerReference meta/v1: apiVersion kind name uid controller=b blockOwnerDeletion=b
ManagedFieldsEntry meta/v1: manager operation apiVersion time=t fieldsType fieldsV1=* subresource
PodSpec core/v1: volumes=[]Volume initContainers=[]Container containers=[]Container
    ephemeralContainers=[]EphemeralContainer restartPolicy terminationGracePeriodSeconds=i
    activeDeadlineSeconds=i dnsPolicy nodeSelector=m serviceAccountName serviceAccount
    automountServiceAccountToken=b nodeName hostNetwork=b hostPID=b hostIPC=b shareProcessNamespace=b
    securityContext=PodSecurityContext imagePullSecrets=[]LocalObjectReference hostname subdomain
    affinity=Affinity schedulerName tolerations=[]Toleration hostAliases=[]HostAlias priorityClassName
    priority=i dnsConfig=PodDNSConfig readinessGates=[]PodReadinessGate runtimeClassName enableServiceLinks=b
    preemptionPolicy overhead=r topologySpreadConstraints=[]TopologySpreadConstraint setHostnameAsFQDN=b
    os=PodOS hostUsers=b schedulingGates=[]PodSchedulingGate resourceClaims=[]PodResourceClaim
    resources=ResourceRequirements hostnameOverride schedulingGroup=PodSchedulingGroup
    evictionResponders=[]EvictionResponder
Volume core/v1: name hostPath=HostPathVolumeSource emptyDir=EmptyDirVolumeSource
    gcePersistentDisk=GCEPersistentDiskVolumeSource awsElasticBlockStore=AWSElasticBlockStoreVolumeSource
    gitRepo=GitRepoVolumeSource secret=SecretVolumeSource nfs=NFSVolumeSource iscsi=ISCSIVolumeSource
    glusterfs=GlusterfsVolumeSource persistentVolumeClaim=PersistentVolumeClaimVolumeSource
    rbd=RBDVolumeSource flexVolume=FlexVolumeSource cinder=CinderVolumeSource cephfs=CephFSVolumeSource
    flocker=FlockerVolumeSource downwardAPI=DownwardAPIVolumeSource fc=FCVolumeSource
    azureFile=AzureFileVolumeSource configMap=ConfigMapVolumeSource
    vsphereVolume=VsphereVirtualDiskVolumeSource quobyte=QuobyteVolumeSource azureDisk=AzureDiskVolumeSource
    photonPersistentDisk=PhotonPersistentDiskVolumeSource projected=ProjectedVolumeSource
    portworxVolume=PortworxVolumeSource scaleIO=ScaleIOVolumeSource storageos=StorageOSVolumeSource
    csi=CSIVolumeSource ephemeral=EphemeralVolumeSource image=ImageVolumeSource
HostPathVolumeSource core/v1: path type
EmptyDirVolumeSource core/v1: medium sizeLimit=q mode=i
GCEPersistentDiskVolumeSource core/v1: pdName fsType partition=i readOnly=b
AWSElasticBlockStoreVolumeSource core/v1: volumeID fsType partition=i readOnly=b
GitRepoVolumeSource core/v1: repository revision directory
SecretVolumeSource core/v1: secretName items=[]KeyToPath defaultMode=i optional=b defaultUser=i
KeyToPath core/v1: key path mode=i user=i
NFSVolumeSource core/v1: server path readOnly=b
ISCSIVolumeSource core/v1: targetPortal iqn lun=i iscsiInterface fsType readOnly=b portals=S
    chapAuthDiscovery=b chapAuthSession=b secretRef=LocalObjectReference initiatorName
LocalObjectReference core/v1: name
GlusterfsVolumeSource core/v1: endpoints path readOnly=b
PersistentVolumeClaimVolumeSource core/v1: claimName readOnly=b
RBDVolumeSource core/v1: monitors=S image fsType pool user keyring secretRef=LocalObjectReference readOnly=b
FlexVolumeSource core/v1: driver fsType secretRef=LocalObjectReference readOnly=b options=m
CinderVolumeSource core/v1: volumeID fsType readOnly=b secretRef=LocalObjectReference
CephFSVolumeSource core/v1: monitors=S path user secretFile secretRef=LocalObjectReference readOnly=b
FlockerVolumeSource core/v1: datasetName datasetUUID
DownwardAPIVolumeSource core/v1: items=[]DownwardAPIVolumeFile defaultMode=i defaultUser=i
DownwardAPIVolumeFile core/v1: path fieldRef=ObjectFieldSelector resourceFieldRef=ResourceFieldSelector mode=i
    user=i
ObjectFieldSelector core/v1: apiVersion fieldPath
ResourceFieldSelector core/v1: containerName resource divisor=q
FCVolumeSource core/v1: targetWWNs=S lun=i fsType readOnly=b wwids=S
AzureFileVolumeSource core/v1: secretName shareName readOnly=b
ConfigMapVolumeSource core/v1: name items=[]KeyToPath defaultMode=i optional=b defaultUser=i
VsphereVirtualDiskVolumeSource core/v1: volumePath fsType storagePolicyName storagePolicyID
QuobyteVolumeSource core/v1: registry volume readOnly=b user group tenant
AzureDiskVolumeSource core/v1: diskName diskURI cachingMode fsType readOnly=b kind
PhotonPersistentDiskVolumeSource core/v1: pdID fsType
ProjectedVolumeSource core/v1: sources=[]VolumeProjection defaultMode=i defaultUser=i
VolumeProjection core/v1: secret=SecretProjection downwardAPI=DownwardAPIProjection
    configMap=ConfigMapProjection serviceAccountToken=ServiceAccountTokenProjection
    clusterTrustBundle=ClusterTrustBundleProjection podCertificate=PodCertificateProjection
SecretProjection core/v1: name items=[]KeyToPath optional=b
DownwardAPIProjection core/v1: items=[]DownwardAPIVolumeFile
ConfigMapProjection core/v1: name items=[]KeyToPath optional=b
ServiceAccountTokenProjection core/v1: audience expirationSeconds=i path user=i
ClusterTrustBundleProjection core/v1: name signerName labelSelector=LabelSelector optional=b path user=i
LabelSelector meta/v1: matchLabels=m matchExpressions=[]LabelSelectorRequirement
LabelSelectorRequirement meta/v1: key operator values=S
PodCertificateProjection core/v1: signerName keyType maxExpirationSeconds=i credentialBundlePath keyPath
    certificateChainPath userAnnotations=m user=i
PortworxVolumeSource core/v1: volumeID fsType readOnly=b
ScaleIOVolumeSource core/v1: gateway system secretRef=LocalObjectReference sslEnabled=b protectionDomain
    storagePool storageMode volumeName fsType readOnly=b
StorageOSVolumeSource core/v1: volumeName volumeNamespace fsType readOnly=b secretRef=LocalObjectReference
CSIVolumeSource core/v1: driver readOnly=b fsType volumeAttributes=m nodePublishSecretRef=LocalObjectReference
EphemeralVolumeSource core/v1: volumeClaimTemplate=PersistentVolumeClaimTemplate
PersistentVolumeClaimTemplate core/v1: metadata=ObjectMeta spec=PersistentVolumeClaimSpec
PersistentVolumeClaimSpec core/v1: accessModes=S selector=LabelSelector resources=VolumeResourceRequirements
    volumeName storageClassName volumeMode dataSource=TypedLocalObjectReference
    dataSourceRef=TypedObjectReference volumeAttributesClassName
VolumeResourceRequirements core/v1: limits=r requests=r
TypedLocalObjectReference core/v1: apiGroup kind name
TypedObjectReference core/v1: apiGroup kind name namespace
ImageVolumeSource core/v1: reference pullPolicy
Container core/v1: name image command=S args=S workingDir ports=[]ContainerPort envFrom=[]EnvFromSource
    env=[]EnvVar resources=ResourceRequirements resizePolicy=[]ContainerResizePolicy restartPolicy
    restartPolicyRules=[]ContainerRestartRule volumeMounts=[]VolumeMount volumeDevices=[]VolumeDevice
    livenessProbe=Probe readinessProbe=Probe startupProbe=Probe lifecycle=Lifecycle terminationMessagePath
    terminationMessagePolicy imagePullPolicy securityContext=SecurityContext stdin=b stdinOnce=b tty=b
ContainerPort core/v1: name hostPort=i containerPort=i protocol hostIP
EnvFromSource core/v1: prefix configMapRef=ConfigMapEnvSource secretRef=SecretEnvSource
ConfigMapEnvSource core/v1: name optional=b
SecretEnvSource core/v1: name optional=b
EnvVar core/v1: name value valueFrom=EnvVarSource
EnvVarSource core/v1: fieldRef=ObjectFieldSelector resourceFieldRef=ResourceFieldSelector
    configMapKeyRef=ConfigMapKeySelector secretKeyRef=SecretKeySelector fileKeyRef=FileKeySelector
ConfigMapKeySelector core/v1: name key optional=b
SecretKeySelector core/v1: name key optional=b
FileKeySelector core/v1: volumeName path key optional=b
ResourceRequirements core/v1: limits=r requests=r claims=[]ResourceClaim
ResourceClaim core/v1: name request
ContainerResizePolicy core/v1: resourceName restartPolicy
ContainerRestartRule core/v1: action exitCodes=ContainerRestartRuleOnExitCodes
ContainerRestartRuleOnExitCodes core/v1: operator values=I
VolumeMount core/v1: name readOnly=b recursiveReadOnly mountPath subPath mountPropagation subPathExpr
    bindMountOptions=S
VolumeDevice core/v1: name devicePath
Probe core/v1: exec=ExecAction httpGet=HTTPGetAction tcpSocket=TCPSocketAction grpc=GRPCAction
    initialDelaySeconds=i timeoutSeconds=i periodSeconds=i successThreshold=i failureThreshold=i
    terminationGracePeriodSeconds=i
ExecAction core/v1: command=S
HTTPGetAction core/v1: path port=n host scheme httpHeaders=[]HTTPHeader protocol
HTTPHeader core/v1: name value
TCPSocketAction core/v1: port=n host
GRPCAction core/v1: port=i service mode
Lifecycle core/v1: postStart=LifecycleHandler preStop=LifecycleHandler stopSignal
LifecycleHandler core/v1: exec=ExecAction httpGet=HTTPGetAction tcpSocket=TCPSocketAction sleep=SleepAction
SleepAction core/v1: seconds=i
SecurityContext core/v1: capabilities=Capabilities privileged=b seLinuxOptions=SELinuxOptions
    windowsOptions=WindowsSecurityContextOptions runAsUser=i runAsGroup=i runAsNonRoot=b
    readOnlyRootFilesystem=b allowPrivilegeEscalation=b procMount seccompProfile=SeccompProfile
    appArmorProfile=AppArmorProfile
Capabilities core/v1: add=S drop=S
SELinuxOptions core/v1: user role type level
WindowsSecurityContextOptions core/v1: gmsaCredentialSpecName gmsaCredentialSpec runAsUserName hostProcess=b
SeccompProfile core/v1: type localhostProfile
AppArmorProfile core/v1: type localhostProfile
EphemeralContainer core/v1: name image command=S args=S workingDir ports=[]ContainerPort
    envFrom=[]EnvFromSource env=[]EnvVar resources=ResourceRequirements resizePolicy=[]ContainerResizePolicy
    restartPolicy restartPolicyRules=[]ContainerRestartRule volumeMounts=[]VolumeMount
    volumeDevices=[]VolumeDevice livenessProbe=Probe readinessProbe=Probe startupProbe=Probe
    lifecycle=Lifecycle terminationMessagePath terminationMessagePolicy imagePullPolicy
    securityContext=SecurityContext stdin=b stdinOnce=b tty=b targetContainerName
PodSecurityContext core/v1: seLinuxOptions=SELinuxOptions windowsOptions=WindowsSecurityContextOptions
    runAsUser=i runAsGroup=i runAsNonRoot=b supplementalGroups=I supplementalGroupsPolicy fsGroup=i
    sysctls=[]Sysctl fsGroupChangePolicy seccompProfile=SeccompProfile appArmorProfile=AppArmorProfile
    seLinuxChangePolicy
Sysctl core/v1: name value
Affinity core/v1: nodeAffinity=NodeAffinity podAffinity=PodAffinity podAntiAffinity=PodAntiAffinity
NodeAffinity core/v1: requiredDuringSchedulingIgnoredDuringExecution=NodeSelector
    preferredDuringSchedulingIgnoredDuringExecution=[]PreferredSchedulingTerm
NodeSelector core/v1: nodeSelectorTerms=[]NodeSelectorTerm
NodeSelectorTerm core/v1: matchExpressions=[]NodeSelectorRequirement matchFields=[]NodeSelectorRequirement
NodeSelectorRequirement core/v1: key operator values=S
PreferredSchedulingTerm core/v1: weight=i preference=NodeSelectorTerm
PodAffinity core/v1: requiredDuringSchedulingIgnoredDuringExecution=[]PodAffinityTerm
    preferredDuringSchedulingIgnoredDuringExecution=[]WeightedPodAffinityTerm
PodAffinityTerm core/v1: labelSelector=LabelSelector namespaces=S topologyKey namespaceSelector=LabelSelector
    matchLabelKeys=S mismatchLabelKeys=S
WeightedPodAffinityTerm core/v1: weight=i podAffinityTerm=PodAffinityTerm
PodAntiAffinity core/v1: requiredDuringSchedulingIgnoredDuringExecution=[]PodAffinityTerm
    preferredDuringSchedulingIgnoredDuringExecution=[]WeightedPodAffinityTerm
Toleration core/v1: key operator value effect tolerationSeconds=i
HostAlias core/v1: ip hostnames=S
PodDNSConfig core/v1: nameservers=S searches=S options=[]PodDNSConfigOption
PodDNSConfigOption core/v1: name value
PodReadinessGate core/v1: conditionType
TopologySpreadConstraint core/v1: maxSkew=i topologyKey whenUnsatisfiable labelSelector=LabelSelector
    minDomains=i nodeAffinityPolicy nodeTaintsPolicy matchLabelKeys=S
PodOS core/v1: name
PodSchedulingGate core/v1: name
PodResourceClaim core/v1: name resourceClaimName resourceClaimTemplateName
PodSchedulingGroup core/v1: podGroupName
EvictionResponder core/v1: name priority=i
PodStatus core/v1: observedGeneration=i phase conditions=[]PodCondition message reason nominatedNodeName
    hostIP hostIPs=[]HostIP podIP podIPs=[]PodIP startTime=t initContainerStatuses=[]ContainerStatus
    containerStatuses=[]ContainerStatus qosClass ephemeralContainerStatuses=[]ContainerStatus resize
    resourceClaimStatuses=[]PodResourceClaimStatus extendedResourceClaimStatus=PodExtendedResourceClaimStatus
    allocatedResources=r resources=ResourceRequirements
    nodeAllocatableResourceClaimStatuses=[]NodeAllocatableResourceClaimStatus volumeHealth=[]PodVolumeHealth
PodCondition core/v1: type observedGeneration=i status lastProbeTime=t lastTransitionTime=t reason message
HostIP core/v1: ip
PodIP core/v1: ip
ContainerStatus core/v1: name state=ContainerState lastState=ContainerState ready=b restartCount=i image
    imageID containerID started=b allocatedResources=r resources=ResourceRequirements
    volumeMounts=[]VolumeMountStatus user=ContainerUser allocatedResourcesStatus=[]ResourceStatus stopSignal
ContainerState core/v1: waiting=ContainerStateWaiting running=ContainerStateRunning
    terminated=ContainerStateTerminated
ContainerStateWaiting core/v1: reason message
ContainerStateRunning core/v1: startedAt=t
ContainerStateTerminated core/v1: exitCode=i signal=i reason message startedAt=t finishedAt=t containerID
VolumeMountStatus core/v1: name mountPath readOnly=b recursiveReadOnly volumeStatus=VolumeStatus
VolumeStatus core/v1: image=ImageVolumeStatus
ImageVolumeStatus core/v1: imageRef
ContainerUser core/v1: linux=LinuxContainerUser
LinuxContainerUser core/v1: uid=i gid=i supplementalGroups=I
ResourceStatus core/v1: name resources=[]ResourceHealth
ResourceHealth core/v1: resourceID health message
PodResourceClaimStatus core/v1: name resourceClaimName
PodExtendedResourceClaimStatus core/v1: requestMappings=[]ContainerExtendedResourceRequest resourceClaimName
ContainerExtendedResourceRequest core/v1: containerName resourceName requestName
NodeAllocatableResourceClaimStatus core/v1: resourceClaimName containers=S
    mapping=[]NodeAllocatableMappedResources overhead=[]NodeAllocatableOverheadResources
NodeAllocatableMappedResources core/v1: name quantity=q
NodeAllocatableOverheadResources core/v1: name perPod=q perContainer=q
PodVolumeHealth core/v1: name healthConditions=[]VolumeHealthCondition lastTransitionTime=t
VolumeHealthCondition core/v1: status reason message
Node core/v1: kind apiVersion metadata=ObjectMeta spec=NodeSpec status=NodeStatus
NodeSpec core/v1: podCIDR podCIDRs=S providerID unschedulable=b taints=[]Taint configSource=NodeConfigSource
    externalID podPreemptionPolicy=NodePodPreemptionPolicy
Taint core/v1: key value effect timeAdded=t
NodeConfigSource core/v1: configMap=ConfigMapNodeConfigSource
ConfigMapNodeConfigSource core/v1: namespace name uid resourceVersion kubeletConfigKey
NodePodPreemptionPolicy core/v1: disableResizePreemption=S
NodeStatus core/v1: capacity=r allocatable=r phase conditions=[]NodeCondition addresses=[]NodeAddress
    daemonEndpoints=NodeDaemonEndpoints nodeInfo=NodeSystemInfo images=[]ContainerImage volumesInUse=S
    volumesAttached=[]AttachedVolume config=NodeConfigStatus runtimeHandlers=[]NodeRuntimeHandler
    features=NodeFeatures declaredFeatures=S
NodeCondition core/v1: type status lastHeartbeatTime=t lastTransitionTime=t reason message
NodeAddress core/v1: type address
NodeDaemonEndpoints core/v1: kubeletEndpoint=DaemonEndpoint
DaemonEndpoint core/v1: Port=i
NodeSystemInfo core/v1: machineID systemUUID bootID kernelVersion osImage containerRuntimeVersion
    kubeletVersion kubeProxyVersion operatingSystem architecture swap=NodeSwapStatus
NodeSwapStatus core/v1: capacity=i
ContainerImage core/v1: names=S sizeBytes=i
AttachedVolume core/v1: name devicePath
NodeConfigStatus core/v1: assigned=NodeConfigSource active=NodeConfigSource lastKnownGood=NodeConfigSource
    error
NodeRuntimeHandler core/v1: name features=NodeRuntimeHandlerFeatures
NodeRuntimeHandlerFeatures core/v1: recursiveReadOnlyMounts=b userNamespaces=b
NodeFeatures core/v1: supplementalGroupsPolicy=b
Service core/v1: kind apiVersion metadata=ObjectMeta spec=ServiceSpec status=ServiceStatus
ServiceSpec core/v1: ports=[]ServicePort selector=m clusterIP clusterIPs=S type externalIPs=S sessionAffinity
    loadBalancerIP loadBalancerSourceRanges=S externalName externalTrafficPolicy healthCheckNodePort=i
    publishNotReadyAddresses=b sessionAffinityConfig=SessionAffinityConfig ipFamilies=S ipFamilyPolicy
    allocateLoadBalancerNodePorts=b loadBalancerClass internalTrafficPolicy trafficDistribution
ServicePort core/v1: name protocol appProtocol port=i targetPort=n nodePort=i
SessionAffinityConfig core/v1: clientIP=ClientIPConfig
ClientIPConfig core/v1: timeoutSeconds=i
ServiceStatus core/v1: loadBalancer=LoadBalancerStatus conditions=[]Condition
LoadBalancerStatus core/v1: ingress=[]LoadBalancerIngress
LoadBalancerIngress core/v1: ip hostname ipMode ports=[]PortStatus
PortStatus core/v1: port=i protocol error
Condition meta/v1: type status observedGeneration=i lastTransitionTime=t reason message
Namespace core/v1: kind apiVersion metadata=ObjectMeta spec=NamespaceSpec status=NamespaceStatus
NamespaceSpec core/v1: finalizers=S
NamespaceStatus core/v1: phase conditions=[]NamespaceCondition
NamespaceCondition core/v1: type status lastTransitionTime=t reason message
Deployment apps/v1: kind apiVersion metadata=ObjectMeta spec=DeploymentSpec status=DeploymentStatus
DeploymentSpec apps/v1: replicas=i selector=LabelSelector template=PodTemplateSpec strategy=DeploymentStrategy
    minReadySeconds=i revisionHistoryLimit=i paused=b progressDeadlineSeconds=i
PodTemplateSpec core/v1: metadata=ObjectMeta spec=PodSpec
DeploymentStrategy apps/v1: type rollingUpdate=RollingUpdateDeployment
RollingUpdateDeployment apps/v1: maxUnavailable=n maxSurge=n
DeploymentStatus apps/v1: observedGeneration=i replicas=i updatedReplicas=i readyReplicas=i
    availableReplicas=i unavailableReplicas=i terminatingReplicas=i conditions=[]DeploymentCondition
    collisionCount=i
DeploymentCondition apps/v1: type status lastUpdateTime=t lastTransitionTime=t reason message
ReplicaSet apps/v1: kind apiVersion metadata=ObjectMeta spec=ReplicaSetSpec status=ReplicaSetStatus
ReplicaSetSpec apps/v1: replicas=i minReadySeconds=i selector=LabelSelector template=PodTemplateSpec
ReplicaSetStatus apps/v1: replicas=i fullyLabeledReplicas=i readyReplicas=i availableReplicas=i
    terminatingReplicas=i observedGeneration=i conditions=[]ReplicaSetCondition
ReplicaSetCondition apps/v1: type status lastTransitionTime=t reason message
StatefulSet apps/v1: kind apiVersion metadata=ObjectMeta spec=StatefulSetSpec status=StatefulSetStatus
StatefulSetSpec apps/v1: replicas=i selector=LabelSelector template=PodTemplateSpec
    volumeClaimTemplates=[]PersistentVolumeClaim serviceName podManagementPolicy
    updateStrategy=StatefulSetUpdateStrategy revisionHistoryLimit=i minReadySeconds=i
    persistentVolumeClaimRetentionPolicy=StatefulSetPersistentVolumeClaimRetentionPolicy
    ordinals=StatefulSetOrdinals
PersistentVolumeClaim core/v1: kind apiVersion metadata=ObjectMeta spec=PersistentVolumeClaimSpec
    status=PersistentVolumeClaimStatus
PersistentVolumeClaimStatus core/v1: phase accessModes=S capacity=r
    conditions=[]PersistentVolumeClaimCondition allocatedResources=r allocatedResourceStatuses=m
    currentVolumeAttributesClassName modifyVolumeStatus=ModifyVolumeStatus healthStatus=VolumeHealthStatus
PersistentVolumeClaimCondition core/v1: type status lastProbeTime=t lastTransitionTime=t reason message
ModifyVolumeStatus core/v1: targetVolumeAttributesClassName status
VolumeHealthStatus core/v1: healthConditions=[]VolumeHealthCondition lastTransitionTime=t
StatefulSetUpdateStrategy apps/v1: type rollingUpdate=RollingUpdateStatefulSetStrategy
RollingUpdateStatefulSetStrategy apps/v1: partition=i maxUnavailable=n
StatefulSetPersistentVolumeClaimRetentionPolicy apps/v1: whenDeleted whenScaled
StatefulSetOrdinals apps/v1: start=i
StatefulSetStatus apps/v1: observedGeneration=i replicas=i readyReplicas=i currentReplicas=i updatedReplicas=i
    currentRevision updateRevision collisionCount=i conditions=[]StatefulSetCondition availableReplicas=i
StatefulSetCondition apps/v1: type status lastTransitionTime=t reason message
DaemonSet apps/v1: kind apiVersion metadata=ObjectMeta spec=DaemonSetSpec status=DaemonSetStatus
DaemonSetSpec apps/v1: selector=LabelSelector template=PodTemplateSpec updateStrategy=DaemonSetUpdateStrategy
    minReadySeconds=i revisionHistoryLimit=i
DaemonSetUpdateStrategy apps/v1: type rollingUpdate=RollingUpdateDaemonSet
RollingUpdateDaemonSet apps/v1: maxUnavailable=n maxSurge=n
DaemonSetStatus apps/v1: currentNumberScheduled=i numberMisscheduled=i desiredNumberScheduled=i numberReady=i
    observedGeneration=i updatedNumberScheduled=i numberAvailable=i numberUnavailable=i collisionCount=i
    conditions=[]DaemonSetCondition
DaemonSetCondition apps/v1: type status lastTransitionTime=t reason message
Job batch/v1: kind apiVersion metadata=ObjectMeta spec=JobSpec status=JobStatus
JobSpec batch/v1: parallelism=i completions=i activeDeadlineSeconds=i podFailurePolicy=PodFailurePolicy
    successPolicy=SuccessPolicy backoffLimit=i backoffLimitPerIndex=i maxFailedIndexes=i
    selector=LabelSelector manualSelector=b template=PodTemplateSpec ttlSecondsAfterFinished=i completionMode
    suspend=b podReplacementPolicy managedBy scheduling=JobSchedulingConfiguration
PodFailurePolicy batch/v1: rules=[]PodFailurePolicyRule
PodFailurePolicyRule batch/v1: action onExitCodes=PodFailurePolicyOnExitCodesRequirement
    onPodConditions=[]PodFailurePolicyOnPodConditionsPattern
PodFailurePolicyOnExitCodesRequirement batch/v1: containerName operator values=I
PodFailurePolicyOnPodConditionsPattern batch/v1: type status
SuccessPolicy batch/v1: rules=[]SuccessPolicyRule
SuccessPolicyRule batch/v1: succeededIndexes succeededCount=i
JobSchedulingConfiguration batch/v1: schedulingPolicy=* schedulingConstraints=* disruptionMode=*
    resourceClaims=*
JobStatus batch/v1: conditions=[]JobCondition startTime=t completionTime=t active=i succeeded=i failed=i
    terminating=i completedIndexes failedIndexes uncountedTerminatedPods=UncountedTerminatedPods ready=i
JobCondition batch/v1: type status lastProbeTime=t lastTransitionTime=t reason message
UncountedTerminatedPods batch/v1: succeeded=S failed=S
CronJob batch/v1: kind apiVersion metadata=ObjectMeta spec=CronJobSpec status=CronJobStatus
CronJobSpec batch/v1: schedule timeZone startingDeadlineSeconds=i concurrencyPolicy suspend=b
    jobTemplate=JobTemplateSpec successfulJobsHistoryLimit=i failedJobsHistoryLimit=i
JobTemplateSpec batch/v1: metadata=ObjectMeta spec=JobSpec
CronJobStatus batch/v1: active=[]ObjectReference lastScheduleTime=t lastSuccessfulTime=t
ObjectReference core/v1: kind namespace name uid apiVersion resourceVersion fieldPath
ServiceAccount core/v1: kind apiVersion metadata=ObjectMeta secrets=[]ObjectReference
    imagePullSecrets=[]LocalObjectReference automountServiceAccountToken=b
PodDisruptionBudget policy/v1: kind apiVersion metadata=ObjectMeta spec=PodDisruptionBudgetSpec
    status=PodDisruptionBudgetStatus
PodDisruptionBudgetSpec policy/v1: minAvailable=n selector=LabelSelector maxUnavailable=n
    unhealthyPodEvictionPolicy
PodDisruptionBudgetStatus policy/v1: observedGeneration=i disruptedPods=* disruptionsAllowed=i
    currentHealthy=i desiredHealthy=i expectedPods=i conditions=[]Condition
PriorityClass scheduling/v1: kind apiVersion metadata=ObjectMeta value=i globalDefault=b description
    preemptionPolicy
NetworkPolicy networking/v1: kind apiVersion metadata=ObjectMeta spec=NetworkPolicySpec
NetworkPolicySpec networking/v1: podSelector=LabelSelector ingress=[]NetworkPolicyIngressRule
    egress=[]NetworkPolicyEgressRule policyTypes=S
NetworkPolicyIngressRule networking/v1: ports=[]NetworkPolicyPort from=[]NetworkPolicyPeer
NetworkPolicyPort networking/v1: protocol port=n endPort=i
NetworkPolicyPeer networking/v1: podSelector=LabelSelector namespaceSelector=LabelSelector ipBlock=IPBlock
IPBlock networking/v1: cidr except=S
NetworkPolicyEgressRule networking/v1: ports=[]NetworkPolicyPort to=[]NetworkPolicyPeer
"""
