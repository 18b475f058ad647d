"""The JSON field names of the kinds that open a door into the cluster, one Go struct a line (codes: see
netpol.loading.schema): networking.k8s.io/v1 Ingress and IngressClass, the Gateway API
(gateway.networking.k8s.io: Gateway, GatewayClass, HTTPRoute, GRPCRoute, TLSRoute, TCPRoute, UDPRoute,
ReferenceGrant) and OpenShift's Route (route.openshift.io/v1).

Facts read from kubernetes/api 10b39a3 (networking/v1 types.go), kubernetes-sigs/gateway-api 4564255
(apis/v1 *_types.go; the v1alpha2/v1beta1 versions of the same kinds carry a subset of these fields) and
openshift/api 2a3d739 (route/v1 types.go). A Go struct whose name another table line already uses is
renamed with a prefix naming its API (`GW…` for the Gateway API, `OpenShift…` for route/v1); the fields are
upstream's. Continuation lines start with spaces.
"""

DOOR_TABLE = """
Ingress networking/v1: kind apiVersion metadata=ObjectMeta spec=IngressSpec status=IngressStatus
IngressSpec networking/v1: ingressClassName defaultBackend=IngressBackend tls=[]IngressTLS rules=[]IngressRule
IngressBackend networking/v1: service=IngressServiceBackend resource=TypedLocalObjectReference
IngressServiceBackend networking/v1: name port=ServiceBackendPort
ServiceBackendPort networking/v1: name number=i
IngressTLS networking/v1: hosts=S secretName
IngressRule networking/v1: host http=HTTPIngressRuleValue
HTTPIngressRuleValue networking/v1: paths=[]HTTPIngressPath
HTTPIngressPath networking/v1: path pathType backend=IngressBackend
IngressStatus networking/v1: loadBalancer=IngressLoadBalancerStatus
IngressLoadBalancerStatus networking/v1: ingress=[]IngressLoadBalancerIngress
IngressLoadBalancerIngress networking/v1: ip hostname ports=[]IngressPortStatus
IngressPortStatus networking/v1: port=i protocol error
IngressClass networking/v1: kind apiVersion metadata=ObjectMeta spec=IngressClassSpec
IngressClassSpec networking/v1: controller parameters=IngressClassParametersReference
IngressClassParametersReference networking/v1: apiGroup kind name scope namespace
Gateway gateway/v1: kind apiVersion metadata=ObjectMeta spec=GatewaySpec status=GatewayStatus
GatewaySpec gateway/v1: gatewayClassName listeners=[]Listener addresses=[]GatewaySpecAddress
    infrastructure=GatewayInfrastructure allowedListeners=AllowedListeners tls=GatewayTLSConfig defaultScope
Listener gateway/v1: name hostname port=i protocol tls=ListenerTLSConfig allowedRoutes=AllowedRoutes
ListenerTLSConfig gateway/v1: mode certificateRefs=[]SecretObjectReference options=m
SecretObjectReference gateway/v1: group kind name namespace
AllowedRoutes gateway/v1: namespaces=RouteNamespaces kinds=[]RouteGroupKind
RouteNamespaces gateway/v1: from selector=LabelSelector
RouteGroupKind gateway/v1: group kind
GatewaySpecAddress gateway/v1: type value
GatewayInfrastructure gateway/v1: labels=m annotations=m parametersRef=LocalParametersReference
LocalParametersReference gateway/v1: group kind name
AllowedListeners gateway/v1: namespaces=ListenerNamespaces
ListenerNamespaces gateway/v1: from selector=LabelSelector
GatewayTLSConfig gateway/v1: backend=GatewayBackendTLS frontend=FrontendTLSConfig
GatewayBackendTLS gateway/v1: clientCertificateRef=SecretObjectReference
FrontendTLSConfig gateway/v1: default=GWTLSConfig perPort=[]TLSPortConfig
GWTLSConfig gateway/v1: validation=FrontendTLSValidation
TLSPortConfig gateway/v1: port=i tls=GWTLSConfig
FrontendTLSValidation gateway/v1: caCertificateRefs=[]GWObjectReference mode
GWObjectReference gateway/v1: group kind name namespace
GatewayStatus gateway/v1: addresses=[]GatewayStatusAddress conditions=[]Condition listeners=[]ListenerStatus
    attachedListenerSets=i
GatewayStatusAddress gateway/v1: type value
ListenerStatus gateway/v1: name supportedKinds=[]RouteGroupKind attachedRoutes=i conditions=[]Condition
GatewayClass gateway/v1: kind apiVersion metadata=ObjectMeta spec=GatewayClassSpec status=GatewayClassStatus
GatewayClassSpec gateway/v1: controllerName parametersRef=ParametersReference description
ParametersReference gateway/v1: group kind name namespace
GatewayClassStatus gateway/v1: conditions=[]Condition supportedFeatures=[]SupportedFeature
SupportedFeature gateway/v1: name
HTTPRoute gateway/v1: kind apiVersion metadata=ObjectMeta spec=HTTPRouteSpec status=RouteStatus
HTTPRouteSpec gateway/v1: parentRefs=[]ParentReference useDefaultGateways hostnames=S rules=[]HTTPRouteRule
ParentReference gateway/v1: group kind namespace name sectionName port=i
HTTPRouteRule gateway/v1: name matches=[]HTTPRouteMatch filters=[]HTTPRouteFilter backendRefs=[]HTTPBackendRef
    timeouts=HTTPRouteTimeouts retry=HTTPRouteRetry sessionPersistence=SessionPersistence
HTTPRouteMatch gateway/v1: path=HTTPPathMatch headers=[]HTTPHeaderMatch queryParams=[]HTTPQueryParamMatch method
HTTPPathMatch gateway/v1: type value
HTTPHeaderMatch gateway/v1: type name value
HTTPQueryParamMatch gateway/v1: type name value
HTTPRouteFilter gateway/v1: type requestHeaderModifier=HTTPHeaderFilter responseHeaderModifier=HTTPHeaderFilter
    requestMirror=HTTPRequestMirrorFilter requestRedirect=HTTPRequestRedirectFilter urlRewrite=HTTPURLRewriteFilter
    cors=HTTPCORSFilter externalAuth=HTTPExternalAuthFilter extensionRef=GWLocalObjectReference
HTTPHeaderFilter gateway/v1: set=[]GWHTTPHeader add=[]GWHTTPHeader remove=S
GWHTTPHeader gateway/v1: name value
HTTPRequestMirrorFilter gateway/v1: backendRef=BackendObjectReference percent=i fraction=Fraction
BackendObjectReference gateway/v1: group kind name namespace port=i
Fraction gateway/v1: numerator=i denominator=i
HTTPRequestRedirectFilter gateway/v1: scheme hostname path=HTTPPathModifier port=i statusCode=i
HTTPPathModifier gateway/v1: type replaceFullPath replacePrefixMatch
HTTPURLRewriteFilter gateway/v1: hostname path=HTTPPathModifier
HTTPCORSFilter gateway/v1: allowOrigins=S allowCredentials=b allowMethods=S allowHeaders=S exposeHeaders=S
    maxAge=i
HTTPExternalAuthFilter gateway/v1: protocol backendRef=BackendObjectReference grpc=GRPCAuthConfig
    http=HTTPAuthConfig forwardBody=ForwardBodyConfig
GRPCAuthConfig gateway/v1: allowedHeaders=S
HTTPAuthConfig gateway/v1: path allowedHeaders=S allowedResponseHeaders=S
ForwardBodyConfig gateway/v1: maxSize=i
GWLocalObjectReference gateway/v1: group kind name
HTTPBackendRef gateway/v1: group kind name namespace port=i weight=i filters=[]HTTPRouteFilter
HTTPRouteTimeouts gateway/v1: request backendRequest
HTTPRouteRetry gateway/v1: codes=I attempts=i backoff
SessionPersistence gateway/v1: absoluteTimeout type cookie=CookieConfig header=HeaderConfig
CookieConfig gateway/v1: name path lifetimeType
HeaderConfig gateway/v1: name
RouteStatus gateway/v1: parents=[]RouteParentStatus
RouteParentStatus gateway/v1: parentRef=ParentReference controllerName conditions=[]Condition
GRPCRoute gateway/v1: kind apiVersion metadata=ObjectMeta spec=GRPCRouteSpec status=RouteStatus
GRPCRouteSpec gateway/v1: parentRefs=[]ParentReference useDefaultGateways hostnames=S rules=[]GRPCRouteRule
GRPCRouteRule gateway/v1: name matches=[]GRPCRouteMatch filters=[]GRPCRouteFilter backendRefs=[]GRPCBackendRef
    sessionPersistence=SessionPersistence
GRPCRouteMatch gateway/v1: method=GRPCMethodMatch headers=[]GRPCHeaderMatch
GRPCMethodMatch gateway/v1: type service method
GRPCHeaderMatch gateway/v1: type name value
GRPCRouteFilter gateway/v1: type requestHeaderModifier=HTTPHeaderFilter responseHeaderModifier=HTTPHeaderFilter
    requestMirror=HTTPRequestMirrorFilter extensionRef=GWLocalObjectReference
GRPCBackendRef gateway/v1: group kind name namespace port=i weight=i filters=[]GRPCRouteFilter
TLSRoute gateway/v1: kind apiVersion metadata=ObjectMeta spec=TLSRouteSpec status=RouteStatus
TLSRouteSpec gateway/v1: parentRefs=[]ParentReference useDefaultGateways hostnames=S rules=[]TLSRouteRule
TLSRouteRule gateway/v1: name backendRefs=[]BackendRef
BackendRef gateway/v1: group kind name namespace port=i weight=i
TCPRoute gateway/v1: kind apiVersion metadata=ObjectMeta spec=TCPRouteSpec status=RouteStatus
TCPRouteSpec gateway/v1: parentRefs=[]ParentReference useDefaultGateways rules=[]TCPRouteRule
TCPRouteRule gateway/v1: name backendRefs=[]BackendRef
UDPRoute gateway/v1: kind apiVersion metadata=ObjectMeta spec=UDPRouteSpec status=RouteStatus
UDPRouteSpec gateway/v1: parentRefs=[]ParentReference useDefaultGateways rules=[]UDPRouteRule
UDPRouteRule gateway/v1: name backendRefs=[]BackendRef
ReferenceGrant gateway/v1: kind apiVersion metadata=ObjectMeta spec=ReferenceGrantSpec
ReferenceGrantSpec gateway/v1: from=[]ReferenceGrantFrom to=[]ReferenceGrantTo
ReferenceGrantFrom gateway/v1: group kind namespace
ReferenceGrantTo gateway/v1: group kind name
Route route/v1: kind apiVersion metadata=ObjectMeta spec=RouteSpec status=OpenShiftRouteStatus
RouteSpec route/v1: host subdomain path to=RouteTargetReference alternateBackends=[]RouteTargetReference
    port=RoutePort tls=OpenShiftTLSConfig wildcardPolicy httpHeaders=RouteHTTPHeaders
RouteTargetReference route/v1: kind name weight=i
RoutePort route/v1: targetPort=n
OpenShiftTLSConfig route/v1: termination certificate key caCertificate destinationCACertificate
    insecureEdgeTerminationPolicy externalCertificate=OpenShiftLocalObjectReference
OpenShiftLocalObjectReference route/v1: name
RouteHTTPHeaders route/v1: actions=RouteHTTPHeaderActions
RouteHTTPHeaderActions route/v1: response=[]RouteHTTPHeader request=[]RouteHTTPHeader
RouteHTTPHeader route/v1: name action=RouteHTTPHeaderActionUnion
RouteHTTPHeaderActionUnion route/v1: type set=RouteSetHTTPHeader
RouteSetHTTPHeader route/v1: value
OpenShiftRouteStatus route/v1: ingress=[]RouteIngress
RouteIngress route/v1: host routerName conditions=[]RouteIngressCondition wildcardPolicy routerCanonicalHostname
RouteIngressCondition route/v1: type status reason message lastTransitionTime=t
"""
